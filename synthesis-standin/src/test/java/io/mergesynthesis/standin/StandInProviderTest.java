package io.mergesynthesis.standin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The stand-in on its own, spoken to with plain HTTP. */
@Timeout(30)
class StandInProviderTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CONFLICT = "{\"conflict_id\":\"c1\",\"action\":\"tool_call\",\"target\":\"jira.x\","
            + "\"rules\":[{\"policy_id\":\"w\",\"scope\":\"org\",\"scope_id\":\"o1\",\"effect\":\"deny\",\"target\":\"jira.*\"},"
            + "{\"policy_id\":\"l\",\"scope\":\"member\",\"scope_id\":\"m1\",\"effect\":\"allow\",\"target\":\"jira.x\"}],"
            + "\"winner_policy_id\":\"w\"}";

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private StandInProvider standIn;

    @BeforeEach
    void start() throws Exception {
        standIn = StandInProvider.start(new Behaviour());
    }

    @AfterEach
    void stop() {
        standIn.close();
    }

    private HttpRequest anthropic(String extra) {
        String body = "{\"model\":\"test-model\",\"max_tokens\":100,\"messages\":[{\"role\":\"user\",\"content\":"
                + JSON.valueToTree(CONFLICT) + "}]" + extra + "}";
        return HttpRequest.newBuilder(URI.create(standIn.anthropicBaseUrl() + "/v1/messages"))
                .header("x-api-key", "test-key").POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    private HttpRequest openAi(String extra) {
        String body = "{\"model\":\"test-model\",\"messages\":[{\"role\":\"system\",\"content\":\"s\"},"
                + "{\"role\":\"user\",\"content\":" + JSON.valueToTree(CONFLICT) + "}]" + extra + "}";
        return HttpRequest.newBuilder(URI.create(standIn.openAiBaseUrl() + "/chat/completions"))
                .header("authorization", "Bearer test-key").POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    private HttpResponse<String> send(HttpRequest request) throws Exception {
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void answersAnthropicToolsWithAToolUseDecidedLikeTheStub() throws Exception {
        HttpResponse<String> response = send(anthropic(",\"tools\":[{\"name\":\"submit\",\"input_schema\":{}}]"));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("request-id")).isPresent();
        JsonNode block = JSON.readTree(response.body()).path("content").get(0);
        assertThat(block.path("type").asText()).isEqualTo("tool_use");
        assertThat(block.path("name").asText()).isEqualTo("submit");
        assertThat(block.path("input").path("resolved_effect").asText()).isEqualTo("deny");
        assertThat(block.path("input").path("loser_actions").get(0).path("action").asText()).isEqualTo("remove");
        assertThat(block.path("input").path("confidence").asDouble()).isEqualTo(0.9);
    }

    @Test
    void answersOpenAiInTheFormAskedFor() throws Exception {
        JsonNode tool = JSON.readTree(send(openAi(",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"submit\"}}]")).body());
        JsonNode schema = JSON.readTree(send(openAi(",\"response_format\":{\"type\":\"json_schema\"}")).body());
        JsonNode text = JSON.readTree(send(openAi("")).body());

        JsonNode call = tool.path("choices").get(0).path("message").path("tool_calls").get(0).path("function");
        assertThat(call.path("name").asText()).isEqualTo("submit");
        assertThat(JSON.readTree(call.path("arguments").asText()).path("merged_rule").path("based_on_policy_id").asText())
                .isEqualTo("w");
        assertThat(JSON.readTree(schema.path("choices").get(0).path("message").path("content").asText()).isObject()).isTrue();
        assertThat(text.path("choices").get(0).path("message").path("content").asText()).startsWith("```json");
        assertThat(text.path("usage").path("prompt_tokens").asLong()).isEqualTo(420);
    }

    @Test
    void aWrongKeyIs401() throws Exception {
        standIn.behaviour().expectedKey("other-test-key");

        assertThat(send(anthropic("")).statusCode()).isEqualTo(401);
        assertThat(send(openAi("")).statusCode()).isEqualTo(401);
    }

    @Test
    void beyondTheRateLimitComes429WithItsResetHeaders() throws Exception {
        standIn.behaviour().rateLimitPerSecond(2);

        List<HttpResponse<String>> responses = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            responses.add(send(anthropic("")));
        }

        // The window is a wall-clock second: a slow machine may have opened a new one in between.
        HttpResponse<String> limited = responses.stream().filter(r -> r.statusCode() == 429).findFirst()
                .orElseGet(() -> responses.get(2));
        if (limited.statusCode() == 429) {
            assertThat(limited.headers().firstValue("retry-after")).contains("1");
            assertThat(limited.headers().firstValue("anthropic-ratelimit-requests-limit")).contains("2");
            assertThat(limited.headers().firstValue("anthropic-ratelimit-requests-remaining")).contains("0");
            assertThat(Instant.parse(limited.headers().firstValue("anthropic-ratelimit-requests-reset").orElseThrow()))
                    .isAfter(Instant.now().minusSeconds(1));
        }
        assertThat(standIn.stats().status(429) + standIn.stats().status(200)).isEqualTo(3);
        assertThat(standIn.stats().status(200)).isGreaterThanOrEqualTo(2);
    }

    @Test
    void everyAnswerStatesTheLimitInItsProtocolsHeaders() throws Exception {
        standIn.behaviour().rateLimitPerSecond(100);

        HttpResponse<String> anthropic = send(anthropic(""));
        HttpResponse<String> openAi = send(openAi(""));

        assertThat(anthropic.statusCode()).isEqualTo(200);
        assertThat(anthropic.headers().firstValue("anthropic-ratelimit-requests-limit")).contains("100");
        assertThat(Integer.parseInt(anthropic.headers().firstValue("anthropic-ratelimit-requests-remaining")
                .orElseThrow())).isBetween(0, 99);
        assertThat(Instant.parse(anthropic.headers().firstValue("anthropic-ratelimit-requests-reset").orElseThrow()))
                .isBetween(Instant.now().minusSeconds(1), Instant.now().plusSeconds(1));
        assertThat(anthropic.headers().firstValue("retry-after")).as("only refusals ask for a wait").isEmpty();
        assertThat(openAi.statusCode()).isEqualTo(200);
        assertThat(openAi.headers().firstValue("x-ratelimit-limit-requests")).contains("100");
        assertThat(openAi.headers().firstValue("x-ratelimit-remaining-requests")).isPresent();
        assertThat(openAi.headers().firstValue("x-ratelimit-reset-requests").orElseThrow()).matches("\\d+ms|1s");
    }

    @Test
    void oneWindowIsSharedByEveryCaller() throws Exception {
        standIn.behaviour().rateLimitPerSecond(1000);

        // Two clients, as two replicas would be: the count goes down for both together.
        HttpClient other = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        int first = Integer.parseInt(send(openAi("")).headers().firstValue("x-ratelimit-remaining-requests").orElseThrow());
        int second = Integer.parseInt(other.send(openAi(""), HttpResponse.BodyHandlers.ofString()).headers()
                .firstValue("x-ratelimit-remaining-requests").orElseThrow());

        // A slow machine may have opened a new window in between; then the second starts afresh.
        assertThat(second).isIn(first - 1, 999);
    }

    @Test
    void aStandInThatStatesNoLimitSaysSoOnlyWhenRefusing() throws Exception {
        standIn.behaviour().rateLimitPerSecond(100).statesRateLimit(false);

        HttpResponse<String> answered = send(anthropic(""));

        assertThat(answered.statusCode()).isEqualTo(200);
        assertThat(answered.headers().map().keySet()).noneMatch(name -> name.contains("ratelimit"));
    }

    @Test
    void latencyDoesNotHoldUpOtherRequests() throws Exception {
        Duration latency = Duration.ofMillis(1500);
        standIn.behaviour().latency(latency);
        long started = System.nanoTime();

        List<CompletableFuture<HttpResponse<String>>> inFlight = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            inFlight.add(http.sendAsync(openAi(""), HttpResponse.BodyHandlers.ofString()));
        }
        for (CompletableFuture<HttpResponse<String>> response : inFlight) {
            assertThat(response.get().statusCode()).isEqualTo(200);
        }

        Duration took = Duration.ofNanos(System.nanoTime() - started);
        assertThat(took).isGreaterThanOrEqualTo(latency).isLessThan(latency.multipliedBy(2));
    }

    @Test
    void scriptedAndFailingAnswersComeInOrder() throws Exception {
        standIn.behaviour().script(Behaviour.Scripted.raw(418, java.util.Map.of("x-test", "yes"), "teapot"));
        standIn.behaviour().failNext(1, Failure.OVERLOADED).failNext(1, Failure.SERVER_ERROR);

        HttpResponse<String> scripted = send(anthropic(""));
        assertThat(scripted.statusCode()).isEqualTo(418);
        assertThat(scripted.body()).isEqualTo("teapot");
        assertThat(scripted.headers().firstValue("x-test")).contains("yes");
        HttpResponse<String> overloaded = send(anthropic(""));
        assertThat(overloaded.statusCode()).isEqualTo(529);
        assertThat(JSON.readTree(overloaded.body()).path("error").path("type").asText()).isEqualTo("overloaded_error");
        assertThat(send(anthropic("")).statusCode()).isEqualTo(500);
        assertThat(send(anthropic("")).statusCode()).isEqualTo(200);
    }

    @Test
    void aFailureRateOfOneFailsEverything() throws Exception {
        standIn.behaviour().failureRate(1.0).failureKind(Failure.RATE_LIMITED);

        assertThat(send(openAi("")).statusCode()).isEqualTo(429);
        assertThat(send(anthropic("")).statusCode()).isEqualTo(429);
    }

    @Test
    void statsCountByPathStatusAndModelAndAreServedAsJson() throws Exception {
        send(anthropic(""));
        send(openAi(""));
        standIn.behaviour().expectedKey("other-test-key");
        send(openAi(""));

        HttpResponse<String> stats = send(HttpRequest.newBuilder(
                URI.create(standIn.anthropicBaseUrl() + "/stand-in/stats")).GET().build());

        assertThat(standIn.stats().path("/v1/messages")).isEqualTo(1);
        assertThat(standIn.stats().path("/v1/chat/completions")).isEqualTo(2);
        assertThat(standIn.stats().status(200)).isEqualTo(2);
        assertThat(standIn.stats().status(401)).isEqualTo(1);
        assertThat(standIn.stats().model("test-model")).isEqualTo(3);
        JsonNode json = JSON.readTree(stats.body());
        assertThat(json.path("byPath").path("/v1/chat/completions").asLong()).isEqualTo(2);
        assertThat(json.path("byStatus").path("401").asLong()).isEqualTo(1);
    }

    @Test
    void bindsTheLoopbackAddressOnly() {
        assertThat(standIn.port()).isPositive();
        assertThat(standIn.anthropicBaseUrl()).startsWith("http://127.0.0.1:");
        assertThat(standIn.openAiBaseUrl()).endsWith("/v1");
    }
}
