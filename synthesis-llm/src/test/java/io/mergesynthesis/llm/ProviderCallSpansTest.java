package io.mergesynthesis.llm;

import static io.mergesynthesis.llm.Fixtures.conflict;
import static io.mergesynthesis.llm.Fixtures.model;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.Failure;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.synthesis.Action;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.Effect;
import io.mergesynthesis.synthesis.PolicyRule;
import io.mergesynthesis.synthesis.Scope;
import io.mergesynthesis.synthesis.Synthesis;
import io.mergesynthesis.synthesis.SynthesisException;
import io.mergesynthesis.synthesis.Ticker;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.prometheus.client.CollectorRegistry;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client span of every provider call, against the stand-in over loopback, as OpenTelemetry's conventions for
 * generative AI name and describe it; and what it never carries.
 */
@Timeout(60)
class ProviderCallSpansTest {

    private final InMemorySpanExporter exported = InMemorySpanExporter.create();
    private final OpenTelemetrySdk telemetry = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exported)).build())
            .build();
    private StandInProvider standIn;
    private LlmSettings settings;

    @BeforeEach
    void start() throws Exception {
        standIn = StandInProvider.start(new Behaviour().expectedKey(Fixtures.KEY).usage(1000, 200, 4000, 2000));
        settings = Fixtures.settings(standIn.anthropicBaseUrl(), standIn.openAiBaseUrl(), AnswerMode.TOOL);
    }

    @AfterEach
    void stop() {
        standIn.close();
        telemetry.close();
    }

    private LlmSynthesizer synthesizer() {
        return new LlmSynthesizer(settings, new TestClock(), Ticker.SYSTEM, new CollectorRegistry(), telemetry);
    }

    @Test
    void anAnthropicCallIsAClientSpanNamedForItsModelWithTheConventionsAttributes() throws Exception {
        Synthesis synthesis = synthesizer().synthesizeWithCalls(conflict(), model("anthropic", "test-model"));

        SpanData span = onlySpan();
        assertThat(span.getName()).isEqualTo("chat test-model");
        assertThat(span.getKind()).isEqualTo(SpanKind.CLIENT);
        assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
        assertThat(attribute(span, "gen_ai.operation.name")).isEqualTo("chat");
        assertThat(attribute(span, "gen_ai.provider.name")).isEqualTo("anthropic");
        assertThat(attribute(span, "gen_ai.request.model")).isEqualTo("test-model");
        assertThat(attribute(span, "gen_ai.response.model")).isEqualTo("test-model");
        // A first call to a model not yet heard from asks for the prior guess for its three rules.
        assertThat(number(span, "gen_ai.request.max_tokens"))
                .isEqualTo((long) AnswerBudget.PRIOR_TOKENS_PER_RULE * (3 + AnswerBudget.FIXED_PART_IN_RULES));
        assertThat(attribute(span, "gen_ai.response.id")).isEqualTo(synthesis.calls().get(0).requestId())
                .startsWith("req_standin_");
        // The conventions count cache reads and writes inside the input tokens, and apart as well.
        assertThat(number(span, "gen_ai.usage.input_tokens")).isEqualTo(1000L + 4000 + 2000);
        assertThat(number(span, "gen_ai.usage.output_tokens")).isEqualTo(200L);
        assertThat(number(span, "gen_ai.usage.cache_read.input_tokens")).isEqualTo(4000L);
        assertThat(number(span, "gen_ai.usage.cache_creation.input_tokens")).isEqualTo(2000L);
        assertThat(attribute(span, "server.address")).isEqualTo("127.0.0.1");
        assertThat(number(span, "server.port")).isEqualTo((long) standIn.port());
        assertThat(attribute(span, "merge_synthesis.call.pass")).isEqualTo("primary");
        assertThat(attribute(span, "error.type")).isNull();
    }

    @Test
    void anOpenAiCallNamesItsProviderAndCountsItsCachedTokensOnce() throws Exception {
        synthesizer().synthesizeWithCalls(conflict(), model("openai", "test-model"));

        SpanData span = onlySpan();
        assertThat(span.getName()).isEqualTo("chat test-model");
        assertThat(attribute(span, "gen_ai.provider.name")).isEqualTo("openai");
        assertThat(attribute(span, "gen_ai.response.id")).startsWith("req-standin-");
        // OpenAI's prompt_tokens already holds the cached tokens (and it bills no cache write).
        assertThat(number(span, "gen_ai.usage.input_tokens")).isEqualTo(1000L + 4000 + 2000);
        assertThat(number(span, "gen_ai.usage.cache_read.input_tokens")).isEqualTo(4000L);
        assertThat(number(span, "gen_ai.usage.cache_creation.input_tokens")).isZero();
    }

    @Test
    void anEscalatedAttemptHasTwoClientSpansUnderTheSpanThatWasCurrent() throws Exception {
        standIn.behaviour().confidenceFor("test-model", 0.5).confidenceFor("test-model-large", 0.95);
        Span attempt = telemetry.getTracer("test").spanBuilder("attempt").startSpan();
        try (var scope = attempt.makeCurrent()) {
            synthesizer().synthesizeWithCalls(conflict(),
                    Fixtures.escalating("anthropic", "test-model", "anthropic", "test-model-large"));
        } finally {
            attempt.end();
        }

        List<SpanData> calls = exported.getFinishedSpanItems().stream()
                .filter(span -> span.getKind() == SpanKind.CLIENT).toList();
        assertThat(calls).extracting(SpanData::getName).containsExactly("chat test-model", "chat test-model-large");
        assertThat(calls).extracting(span -> attribute(span, "merge_synthesis.call.pass"))
                .containsExactly("primary", "escalation");
        assertThat(calls).allSatisfy(span -> {
            assertThat(span.getParentSpanId()).isEqualTo(attempt.getSpanContext().getSpanId());
            assertThat(span.getTraceId()).isEqualTo(attempt.getSpanContext().getTraceId());
        });
    }

    @Test
    void anErrorStatusIsTheSpansErrorType() throws Exception {
        standIn.behaviour().failNext(1, Failure.SERVER_ERROR);

        catchThrowableOfType(() -> synthesizer().synthesizeWithCalls(conflict(), model("anthropic", "test-model")),
                SynthesisException.class);

        SpanData span = onlySpan();
        assertThat(attribute(span, "error.type")).isEqualTo("500");
        assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(span.getEvents()).as("no exception event: its message is not the span's to carry").isEmpty();
    }

    @Test
    void aThrottledCallIsTheSpansErrorTypeToo() throws Exception {
        standIn.behaviour().failNext(1, Failure.RATE_LIMITED);

        catchThrowableOfType(() -> synthesizer().synthesizeWithCalls(conflict(), model("openai", "test-model")),
                SynthesisException.class);

        assertThat(attribute(onlySpan(), "error.type")).isEqualTo("429");
    }

    @Test
    void aCallThatRanOutOfTimeIsATimeout() throws Exception {
        settings.getProviders().get("anthropic").setRequestTimeout(Duration.ofMillis(200));
        standIn.behaviour().latency(Duration.ofSeconds(5));

        catchThrowableOfType(() -> synthesizer().synthesizeWithCalls(conflict(), model("anthropic", "test-model")),
                SynthesisException.class);

        SpanData span = onlySpan();
        assertThat(attribute(span, "error.type")).isEqualTo("timeout");
        assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(number(span, "gen_ai.usage.input_tokens")).as("no answer, no counts").isNull();
    }

    @Test
    void aProviderThatCannotBeReachedIsTheTransportsException() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        settings.getProviders().get("openai").setBaseUrl("http://127.0.0.1:" + closedPort + "/v1");

        catchThrowableOfType(() -> synthesizer().synthesizeWithCalls(conflict(), model("openai", "test-model")),
                SynthesisException.class);

        assertThat(attribute(onlySpan(), "error.type")).isEqualTo("java.net.ConnectException");
    }

    @Test
    void noSpanCarriesTheConflictThePromptTheAnswerOrTheKey() throws Exception {
        Random random = new Random(48);
        LlmSynthesizer synthesizer = synthesizer();
        List<String> secrets = new ArrayList<>(List.of(Fixtures.KEY, "rationale"));
        for (int i = 0; i < 12; i++) {
            String marker = "mark" + Long.toString(random.nextLong() & Long.MAX_VALUE, 36);
            secrets.add(marker);
            ConflictSnapshot conflict = conflictNaming(marker, random);
            String provider = random.nextBoolean() ? "anthropic" : "openai";
            if (random.nextInt(3) == 0) {
                // Answers that fail the answer check; a throttle would pause the provider and skip later calls.
                Failure[] unusable = {Failure.NOT_JSON, Failure.UNKNOWN_POLICY, Failure.MISSING_FIELD};
                standIn.behaviour().failNext(1, unusable[random.nextInt(unusable.length)]);
            }
            try {
                synthesizer.synthesizeWithCalls(conflict, model(provider, "test-model"));
            } catch (SynthesisException expected) {
                // Failures are traced too, and must be as clean.
            }
        }

        List<SpanData> spans = exported.getFinishedSpanItems();
        assertThat(spans).hasSizeGreaterThanOrEqualTo(12);
        Set<String> contentKeys = Set.of("gen_ai.input.messages", "gen_ai.output.messages",
                "gen_ai.system_instructions", "gen_ai.tool.definitions", "gen_ai.prompt", "gen_ai.completion");
        for (SpanData span : spans) {
            span.getAttributes().forEach((key, value) -> {
                assertThat(contentKeys).doesNotContain(key.getKey());
                for (String secret : secrets) {
                    assertThat(String.valueOf(value)).as(key.getKey()).doesNotContain(secret);
                }
            });
            assertThat(span.getName()).isIn("chat test-model");
        }
    }

    /** A conflict whose target, subjects and patterns carry {@code marker}: it must reach no span. */
    private static ConflictSnapshot conflictNaming(String marker, Random random) {
        String target = "tool." + marker;
        String org = UUID.randomUUID().toString();
        return new ConflictSnapshot(UUID.randomUUID(), UUID.fromString(org), "key|" + marker, Action.TOOL_CALL,
                target, List.of(
                        new PolicyRule("pol-" + marker + "-1", Scope.ORG, org, Effect.DENY, target),
                        new PolicyRule("pol-" + marker + "-2", Scope.MEMBER, "member-" + marker, Effect.ALLOW,
                                random.nextBoolean() ? target : "tool.*")),
                "pol-" + marker + "-1", Instant.parse("2026-11-20T10:15:00Z"));
    }

    private SpanData onlySpan() {
        assertThat(exported.getFinishedSpanItems()).hasSize(1);
        return exported.getFinishedSpanItems().get(0);
    }

    private static String attribute(SpanData span, String key) {
        return span.getAttributes().get(AttributeKey.stringKey(key));
    }

    private static Long number(SpanData span, String key) {
        return span.getAttributes().get(AttributeKey.longKey(key));
    }
}
