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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The stand-in's token buckets, spoken to with plain HTTP. The buckets refill over an hour here, so that what a
 * test reads back is what its requests took, give or take the few tokens that flow back meanwhile.
 */
@Timeout(30)
class StandInTokenLimitsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CONFLICT = "{\"conflict_id\":\"c1\",\"action\":\"tool_call\",\"target\":\"jira.x\","
            + "\"rules\":[{\"policy_id\":\"w\",\"scope\":\"org\",\"scope_id\":\"o1\",\"effect\":\"deny\",\"target\":\"jira.*\"},"
            + "{\"policy_id\":\"l\",\"scope\":\"member\",\"scope_id\":\"m1\",\"effect\":\"allow\",\"target\":\"jira.x\"}],"
            + "\"winner_policy_id\":\"w\"}";
    private static final long MAX_TOKENS = 1000;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private StandInProvider standIn;

    @BeforeEach
    void start() throws Exception {
        standIn = StandInProvider.start(new Behaviour().tokenPeriod(Duration.ofHours(1)).countsTokens(true));
    }

    @AfterEach
    void stop() {
        standIn.close();
    }

    private static String anthropicBody(String model) {
        return "{\"model\":\"" + model + "\",\"max_tokens\":" + MAX_TOKENS + ",\"messages\":[{\"role\":\"user\","
                + "\"content\":" + JSON.valueToTree(CONFLICT) + "}]}";
    }

    private HttpRequest anthropic(String model) {
        String body = anthropicBody(model);
        return HttpRequest.newBuilder(URI.create(standIn.anthropicBaseUrl() + "/v1/messages"))
                .header("x-api-key", "test-key").POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    private HttpRequest openAi() {
        String body = "{\"model\":\"gpt\",\"max_completion_tokens\":" + MAX_TOKENS + ",\"messages\":[{\"role\":\"user\","
                + "\"content\":" + JSON.valueToTree(CONFLICT) + "}]}";
        return HttpRequest.newBuilder(URI.create(standIn.openAiBaseUrl() + "/chat/completions"))
                .header("authorization", "Bearer test-key").POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    private HttpResponse<String> send(HttpRequest request) throws Exception {
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static long header(HttpResponse<String> response, String name) {
        return Long.parseLong(response.headers().firstValue(name).orElseThrow());
    }

    @Test
    void usageIsTheStandInsCountOfTheRequestAndTheAnswer() throws Exception {
        HttpResponse<String> response = send(anthropic("m"));

        JsonNode body = JSON.readTree(response.body());
        long input = body.path("usage").path("input_tokens").asLong();
        long output = body.path("usage").path("output_tokens").asLong();
        assertThat(input).isEqualTo(PromptCache.inputTokens(JSON.readTree(anthropicBody("m")))).isPositive();
        // The count is of the answer the stand-in wrote, before the dialect fences it as a model would.
        String answer = body.path("content").get(0).path("text").asText()
                .replace("```json\n", "").replace("\n```", "");
        assertThat(output).isEqualTo(StandInTokens.count(answer)).isPositive();
    }

    @Test
    void theOutputBucketHoldsMaxTokensUntilTheAnswerAndKeepsWhatWasWritten() throws Exception {
        standIn.behaviour().tokenLimits(0, 10_000, 0);

        HttpResponse<String> first = send(anthropic("m"));
        long written = JSON.readTree(first.body()).path("usage").path("output_tokens").asLong();
        HttpResponse<String> second = send(anthropic("m"));

        assertThat(header(first, "anthropic-ratelimit-output-tokens-limit")).isEqualTo(10_000);
        assertThat(header(first, "anthropic-ratelimit-output-tokens-remaining"))
                .as("stated as the request was counted: max_tokens held").isBetween(9_000L - 1, 9_000L);
        assertThat(header(second, "anthropic-ratelimit-output-tokens-remaining"))
                .as("the first call's unwritten tokens came back").isBetween(9_000L - written - 2, 9_000L - written + 2);
        assertThat(Instant.parse(second.headers().firstValue("anthropic-ratelimit-output-tokens-reset").orElseThrow()))
                .as("full again once what is missing has flowed back").isAfter(Instant.now().plusSeconds(100));
        assertThat(second.headers().firstValue("anthropic-ratelimit-input-tokens-remaining")).isEmpty();
    }

    @Test
    void aRequestTheBucketCannotHoldIs429AndTakesNothing() throws Exception {
        standIn.behaviour().tokenLimits(0, 2_500, 0);

        // Each answer keeps what it wrote: the calls go on until fewer than max_tokens are left.
        long written = 0;
        int answered = 0;
        HttpResponse<String> refused = send(anthropic("m"));
        while (refused.statusCode() == 200 && answered < 100) {
            written += JSON.readTree(refused.body()).path("usage").path("output_tokens").asLong();
            answered++;
            refused = send(anthropic("m"));
        }

        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(2_500 - written).as("after %d answers", answered).isLessThan(MAX_TOKENS + 5);
        assertThat(JSON.readTree(refused.body()).path("error").path("type").asText()).isEqualTo("rate_limit_error");
        assertThat(refused.body()).contains("output_tokens");
        assertThat(header(refused, "retry-after")).isPositive();
        long left = header(refused, "anthropic-ratelimit-output-tokens-remaining");
        assertThat(left).isLessThan(MAX_TOKENS);
        HttpResponse<String> again = send(anthropic("m"));
        assertThat(again.statusCode()).isEqualTo(429);
        assertThat(header(again, "anthropic-ratelimit-output-tokens-remaining")).as("a refusal takes nothing")
                .isBetween(left - 1, left + 1);
        assertThat(send(anthropic("other")).statusCode()).as("each model has buckets of its own").isEqualTo(200);
    }

    @Test
    void theInputBucketIsChargedWhatTheUsageReports() throws Exception {
        standIn.behaviour().tokenLimits(50_000, 0, 0);

        HttpResponse<String> first = send(anthropic("m"));
        long input = JSON.readTree(first.body()).path("usage").path("input_tokens").asLong();

        assertThat(header(first, "anthropic-ratelimit-input-tokens-remaining"))
                .isBetween(50_000 - input - 1, 50_000 - input);
        assertThat(header(first, "anthropic-ratelimit-tokens-remaining")).as("the tighter token limit")
                .isEqualTo(header(first, "anthropic-ratelimit-input-tokens-remaining"));
    }

    @Test
    void openAiStatesOneCombinedBucketChargedInputAndMaxTokens() throws Exception {
        standIn.behaviour().tokenLimits(0, 0, 100_000);

        HttpResponse<String> first = send(openAi());
        JsonNode usage = JSON.readTree(first.body()).path("usage");
        long input = usage.path("prompt_tokens").asLong();
        long written = usage.path("completion_tokens").asLong();
        HttpResponse<String> second = send(openAi());

        assertThat(header(first, "x-ratelimit-limit-tokens")).isEqualTo(100_000);
        assertThat(header(first, "x-ratelimit-remaining-tokens"))
                .isBetween(100_000 - input - MAX_TOKENS - 1, 100_000 - input - MAX_TOKENS);
        assertThat(header(second, "x-ratelimit-remaining-tokens")).as("max_tokens held, the first's unwritten back")
                .isBetween(100_000 - 2 * input - MAX_TOKENS - written - 2, 100_000 - 2 * input - MAX_TOKENS - written + 2);
        assertThat(first.headers().firstValue("x-ratelimit-reset-tokens").orElseThrow()).matches("(\\d+m)?\\d+(\\.\\d+)?s|\\d+ms");
        assertThat(first.headers().firstValue("anthropic-ratelimit-input-tokens-remaining")).isEmpty();
    }

    @Test
    void bucketsStartAsPartlySpentAsToldAndAnthropicsRemainingIsRoundedWithResetsInWholeSeconds() throws Exception {
        standIn.behaviour().tokenStartLevels(0.1, 0.5, 1).roundsRemaining(true).tokenLimits(300_000, 40_000, 0);

        HttpResponse<String> response = send(anthropic("partly-spent"));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(header(response, "anthropic-ratelimit-input-tokens-remaining"))
                .as("a tenth of 300,000, less this request's input, to the nearest thousand").isEqualTo(30_000);
        assertThat(header(response, "anthropic-ratelimit-output-tokens-remaining"))
                .as("half of 40,000 less the 1,000 held, to the nearest thousand").isEqualTo(19_000);
        Instant reset = Instant.parse(response.headers().firstValue("anthropic-ratelimit-input-tokens-reset")
                .orElseThrow());
        assertThat(reset.getNano()).as("a whole second, as Anthropic states it").isZero();
        assertThat(Duration.between(Instant.now(), reset)).as("nine tenths of an hour's refill")
                .isBetween(Duration.ofMinutes(53), Duration.ofMinutes(55));
    }

    @Test
    void theFirstTierLimitsTheRequestsAndTokensOfAMinute() throws Exception {
        standIn.behaviour().tier(1);

        HttpResponse<String> response = send(anthropic("tier-1"));

        assertThat(header(response, "anthropic-ratelimit-requests-limit")).isEqualTo(50);
        assertThat(header(response, "anthropic-ratelimit-requests-remaining")).isEqualTo(49);
        assertThat(header(response, "anthropic-ratelimit-input-tokens-limit")).isEqualTo(30_000);
        assertThat(header(response, "anthropic-ratelimit-output-tokens-limit")).isEqualTo(8_000);
        assertThat(Duration.between(Instant.now(), Instant.parse(response.headers()
                .firstValue("anthropic-ratelimit-requests-reset").orElseThrow()))).as("a window of a minute")
                .isBetween(Duration.ofSeconds(58), Duration.ofSeconds(60));
    }
}
