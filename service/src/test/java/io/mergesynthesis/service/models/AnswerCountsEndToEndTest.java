package io.mergesynthesis.service.models;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.Seed;
import io.mergesynthesis.service.testing.TestApp;
import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.StandInProvider;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Whatever an answer carries in its usage block, its id or its text, the call it paid for reaches the ledger
 * exactly once, the attempt reaches the history and the pool goes on. A loopback server stands between the
 * service and the stand-in and rewrites each answer with made-up counts (negative, huge, fractional, strings,
 * missing) and text holding NULs and lone surrogates, which PostgreSQL refuses.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class AnswerCountsEndToEndTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int CASES = 30;
    /**
     * Spelled into the JSON text after it is written, as JSON escapes (Jackson would never write a lone surrogate
     * itself): at the body's level, and escaped once more inside the tool's arguments, which are JSON in a string.
     */
    private static final String[] LONE_HIGH = {"@HIGH@", "@ARGUMENTS-HIGH@"};
    private static final String[] LONE_LOW = {"@LOW@", "@ARGUMENTS-LOW@"};

    static final StandInProvider STAND_IN = TestApp.standIn(new Behaviour().confidence(0.95));
    static final Rewriter REWRITER = new Rewriter(STAND_IN.openAiBaseUrl(), new Random(38));
    /** As {@link TestApp#onStandIn}, with the rewriter in front: a second override of one key may not take. */
    static final TestApp APP = TestApp.create(
            ConfigOverride.config("synthesis.synthesizer", "llm"),
            ConfigOverride.config("synthesis.maxAttempts", "1"),
            ConfigOverride.config("synthesis.pollInterval", "200ms"),
            ConfigOverride.config("synthesis.baseBackoff", "50ms"),
            ConfigOverride.config("llm.primaryModel", "standin/small"),
            ConfigOverride.config("llm.providers.standin.type", "openai"),
            ConfigOverride.config("llm.providers.standin.baseUrl", REWRITER.baseUrl()),
            ConfigOverride.config("llm.providers.standin.apiKey", TestApp.STAND_IN_KEY),
            ConfigOverride.config("llm.providers.standin.answerMode", "tool"),
            ConfigOverride.config("llm.providers.standin.requestTimeout", "5s"),
            ConfigOverride.config("llm.models.standin/small.inputPerMillionUsd", "1"),
            ConfigOverride.config("llm.models.standin/small.outputPerMillionUsd", "5"));
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    @AfterAll
    static void stop() {
        REWRITER.close();
        STAND_IN.close();
    }

    @Test
    void everyAnsweredCallIsOneLedgerRowAndEveryAttemptIsInTheHistory() throws Exception {
        String platform = APP.token(Role.PLATFORM, null);
        UUID org = UUID.randomUUID();
        String admin = APP.token(Role.ORG_ADMIN, org);
        List<UUID> conflicts = new ArrayList<>();
        for (int i = 0; i < CASES; i++) {
            conflicts.add(Seed.conflict(APP, platform, org, "counts-" + i, "jira.create_issue"));
        }
        List<JsonNode> finished = new ArrayList<>();
        for (UUID id : conflicts) {
            finished.add(awaitFinished(admin, id));
        }

        assertThat(REWRITER.answered()).as("one call per conflict").isEqualTo(CASES);
        assertThat(ledgerRows(org)).as("every answered call, once: %s", REWRITER.cases).isEqualTo(CASES);
        for (JsonNode conflict : finished) {
            String state = conflict.at("/synthesis/state").asText();
            JsonNode calls = conflict.at("/synthesis/calls");
            assertThat(calls).as("%s", conflict).hasSize(1);
            if (state.equals("done")) {
                assertThat(conflict.at("/synthesis/suggested_merge").isObject()).as("%s", conflict).isTrue();
                assertThat(calls.get(0).path("outcome").asText()).isEqualTo("stored");
            } else {
                assertThat(state).as("%s", conflict).isEqualTo("max_attempts_exceeded");
                assertThat(conflict.at("/synthesis/attempt_history")).as("%s", conflict).hasSize(1);
                assertThat(calls.get(0).path("outcome").asText()).isEqualTo("failed");
            }
        }

        // And the pool goes on: an ordinary answer after all that is stored as usual.
        REWRITER.passThrough();
        UUID after = Seed.conflict(APP, platform, org, "counts-after", "drive.share");
        assertThat(awaitFinished(admin, after).at("/synthesis/state").asText()).isEqualTo("done");
        assertThat(ledgerRows(org)).isEqualTo(CASES + 1);
    }

    private static long ledgerRows(UUID org) {
        return APP.database().jdbi().withHandle(handle -> handle.createQuery(
                "SELECT count(DISTINCT id) FROM llm_usage_events WHERE org_id = :org").bind("org", org)
                .mapTo(Long.class).one());
    }

    /** Waits for the conflict's one attempt to end, woken by each answer the rewriter passes on. */
    private static JsonNode awaitFinished(String admin, UUID id) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        JsonNode last = null;
        while (System.nanoTime() < end) {
            last = Seed.parse(APP.get(admin, "/v1/conflicts/" + id).body());
            String state = last.at("/synthesis/state").asText();
            if (state.equals("done") || state.equals("max_attempts_exceeded")) {
                return last;
            }
            REWRITER.progress.poll(100, TimeUnit.MILLISECONDS);
        }
        throw new AssertionError("the attempt of conflict " + id + " did not end: " + last);
    }

    /** Passes each request to the stand-in and rewrites its answer by the next made-up case. */
    static final class Rewriter implements AutoCloseable {

        private final HttpServer server;
        private final HttpClient client = HttpClient.newHttpClient();
        private final String target;
        private final Random random;
        private volatile boolean passThrough;
        final BlockingQueue<Integer> progress = new LinkedBlockingQueue<>();
        final ConcurrentLinkedQueue<String> cases = new ConcurrentLinkedQueue<>();

        Rewriter(String target, Random random) {
            this.target = target;
            this.random = random;
            try {
                server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            server.createContext("/", this::handle);
            server.start();
        }

        String baseUrl() {
            return "http://" + server.getAddress().getHostString() + ":" + server.getAddress().getPort();
        }

        int answered() {
            return cases.size();
        }

        void passThrough() {
            passThrough = true;
        }

        private void handle(HttpExchange exchange) throws IOException {
            byte[] request = exchange.getRequestBody().readAllBytes();
            HttpRequest.Builder forward = HttpRequest.newBuilder(URI.create(target + exchange.getRequestURI().getPath()))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(request))
                    .header("content-type", "application/json")
                    .header("authorization", exchange.getRequestHeaders().getFirst("authorization"));
            HttpResponse<String> answer;
            try {
                answer = client.send(forward.build(), HttpResponse.BodyHandlers.ofString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
            String body = answer.body();
            if (answer.statusCode() == 200 && !passThrough) {
                body = rewrite(body);
                cases.add(body);
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("content-type", "application/json");
            exchange.sendResponseHeaders(answer.statusCode(), bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
            progress.add(answer.statusCode());
        }

        private synchronized String rewrite(String original) throws IOException {
            ObjectNode body = (ObjectNode) JSON.readTree(original);
            body.put("id", strange("chatcmpl-", 0));
            JsonNode arguments = body.at("/choices/0/message/tool_calls/0/function/arguments");
            if (arguments.isTextual()) {
                ObjectNode answer = (ObjectNode) JSON.readTree(arguments.asText());
                answer.put("rationale", strange("because ", 1));
                ((ObjectNode) body.at("/choices/0/message/tool_calls/0/function")).put("arguments", answer.toString());
            }
            switch (random.nextInt(4)) {
                case 0 -> body.remove("usage");
                case 1 -> body.set("usage", oddValue());
                default -> {
                    ObjectNode usage = body.putObject("usage");
                    usage.set("prompt_tokens", count());
                    usage.set("completion_tokens", count());
                    if (random.nextBoolean()) {
                        usage.putObject("prompt_tokens_details").set("cached_tokens", count());
                    }
                }
            }
            return body.toString()
                    .replace(LONE_HIGH[0], "\\ud800").replace(LONE_LOW[0], "\\udfff")
                    .replace(LONE_HIGH[1], "\\\\ud800").replace(LONE_LOW[1], "\\\\udc00");
        }

        /** A count as a provider should send it, or as one never should. */
        private JsonNode count() {
            JsonNodeFactory nodes = JsonNodeFactory.instance;
            return switch (random.nextInt(11)) {
                case 0 -> nodes.numberNode(-1 - random.nextInt(1000));
                case 1 -> nodes.numberNode(9e18);
                case 2 -> nodes.numberNode(Long.MAX_VALUE);
                case 3 -> nodes.numberNode(10_000_001L + random.nextInt(1_000_000_000));
                case 4 -> nodes.numberNode(12.5);
                case 5 -> nodes.textNode(String.valueOf(random.nextInt(100)));
                case 6 -> nodes.textNode("lots");
                case 7 -> nodes.nullNode();
                case 8 -> nodes.booleanNode(true);
                default -> nodes.numberNode(random.nextInt(5000));
            };
        }

        private JsonNode oddValue() {
            return switch (random.nextInt(3)) {
                case 0 -> JsonNodeFactory.instance.textNode("none");
                case 1 -> JsonNodeFactory.instance.arrayNode().add(1);
                default -> JsonNodeFactory.instance.nullNode();
            };
        }

        /** Text with, at random places, NULs and lone surrogates of both halves. */
        private String strange(String start, int level) {
            StringBuilder text = new StringBuilder(start);
            int parts = 1 + random.nextInt(6);
            for (int i = 0; i < parts; i++) {
                text.append(switch (random.nextInt(6)) {
                    case 0 -> "\u0000";
                    case 1 -> LONE_HIGH[level];
                    case 2 -> LONE_LOW[level];
                    case 3 -> "\uD83D\uDE00";
                    case 4 -> "ok";
                    default -> String.valueOf(random.nextInt(1000));
                });
            }
            return text.toString();
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }
}
