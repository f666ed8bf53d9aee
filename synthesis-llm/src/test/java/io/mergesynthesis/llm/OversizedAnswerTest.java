package io.mergesynthesis.llm;

import static io.mergesynthesis.llm.Fixtures.conflict;
import static io.mergesynthesis.llm.Fixtures.model;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.sun.net.httpserver.HttpServer;
import io.mergesynthesis.synthesis.InvalidAnswerException;
import io.mergesynthesis.synthesis.ProviderCall;
import io.mergesynthesis.synthesis.ProviderCall.Disposition;
import io.mergesynthesis.synthesis.Ticker;
import io.prometheus.client.CollectorRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A provider that answers with a body far larger than any answer: the body is not read whole (a replica's heap
 * would not survive it), the call fails as an answer that cannot be used, and it is still a paid call.
 */
@Timeout(60)
class OversizedAnswerTest {

    private static final long HUGE = 200L * 1024 * 1024;

    private HttpServer server;
    private final AtomicLong written = new AtomicLong();
    private final CountDownLatch stoppedReading = new CountDownLatch(1);

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.getResponseHeaders().add("content-type", "application/json");
            exchange.getResponseHeaders().add("request-id", "req_huge");
            exchange.getResponseHeaders().add("x-request-id", "req_huge");
            // Streamed as it is made, never held: a well-formed start, then text that does not end.
            exchange.sendResponseHeaders(200, 0);
            byte[] chunk = new byte[64 * 1024];
            Arrays.fill(chunk, (byte) 'a');
            try (OutputStream out = exchange.getResponseBody()) {
                byte[] start = "{\"id\":\"msg_1\",\"content\":[{\"type\":\"text\",\"text\":\""
                        .getBytes(StandardCharsets.UTF_8);
                out.write(start);
                written.addAndGet(start.length);
                while (written.get() < HUGE) {
                    out.write(chunk);
                    written.addAndGet(chunk.length);
                }
            } catch (IOException dropped) {
                stoppedReading.countDown();
            }
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"anthropic", "openai"})
    void aBodyPastTheLimitIsDroppedAndTheCallIsRecordedAsAnInvalidAnswer(String provider) throws Exception {
        String baseUrl = "http://" + server.getAddress().getHostString() + ":" + server.getAddress().getPort();
        LlmSettings settings = Fixtures.settings(baseUrl, baseUrl, AnswerMode.TOOL);
        CollectorRegistry registry = new CollectorRegistry();
        LlmSynthesizer synthesizer = new LlmSynthesizer(settings, new TestClock(), Ticker.SYSTEM, registry);

        InvalidAnswerException failed = catchThrowableOfType(
                () -> synthesizer.synthesizeWithCalls(conflict(), model(provider, "test-model")),
                InvalidAnswerException.class);

        assertThat(failed).as("an answer that cannot be used").isNotNull();
        assertThat(failed.summary()).contains("reading stopped");
        ProviderCall call = failed.calls().get(0);
        assertThat(failed.calls()).hasSize(1);
        assertThat(call.disposition()).isEqualTo(Disposition.FAILED);
        assertThat(call.requestId()).isEqualTo("req_huge");
        // Its max_tokens: the first budget of a model not yet heard from, for the conflict's three rules.
        assertThat(call.outputTokens()).as("charged every token it was allowed to write")
                .isGreaterThanOrEqualTo(AnswerBudget.PRIOR_TOKENS_PER_RULE * (3 + AnswerBudget.FIXED_PART_IN_RULES));
        assertThat(call.inputTokens()).isPositive();
        assertThat(call.costUsd()).isPositive();
        assertThat(registry.getSampleValue("llm_calls_total", new String[] {"provider", "outcome"},
                new String[] {provider, "invalid_output"})).isEqualTo(1.0);

        assertThat(stoppedReading.await(30, TimeUnit.SECONDS)).as("the connection was dropped").isTrue();
        assertThat(written.get()).as("the server was stopped long before the end").isLessThan(HUGE / 10);
    }
}
