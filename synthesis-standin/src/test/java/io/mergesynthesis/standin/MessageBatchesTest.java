package io.mergesynthesis.standin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The stand-in's Message Batches, spoken to with plain HTTP in the shapes of Anthropic's reference. */
@Timeout(30)
class MessageBatchesTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CONFLICT = "{\"conflict_id\":\"c1\",\"action\":\"tool_call\",\"target\":\"jira.x\","
            + "\"rules\":[{\"policy_id\":\"w\",\"scope\":\"org\",\"scope_id\":\"o1\",\"effect\":\"deny\",\"target\":\"jira.*\"},"
            + "{\"policy_id\":\"l\",\"scope\":\"member\",\"scope_id\":\"m1\",\"effect\":\"allow\",\"target\":\"jira.x\"}],"
            + "\"winner_policy_id\":\"w\"}";

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private StandInProvider standIn;

    @BeforeEach
    void start() throws Exception {
        standIn = StandInProvider.start(new Behaviour().expectedKey("test-key"));
    }

    @AfterEach
    void stop() {
        standIn.close();
    }

    private String requests(String... customIds) {
        StringBuilder body = new StringBuilder("{\"requests\":[");
        for (int i = 0; i < customIds.length; i++) {
            body.append(i == 0 ? "" : ",").append("{\"custom_id\":\"").append(customIds[i]).append("\",\"params\":")
                    .append("{\"model\":\"test-model\",\"max_tokens\":100,\"messages\":[{\"role\":\"user\",")
                    .append("\"content\":").append(JSON.valueToTree(CONFLICT).toString()).append("}]}}");
        }
        return body.append("]}").toString();
    }

    private HttpResponse<String> post(String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(standIn.anthropicBaseUrl() + MessageBatches.PATH))
                .header("x-api-key", "test-key").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).header("x-api-key", "test-key").GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode batch(String id) throws Exception {
        return JSON.readTree(get(standIn.anthropicBaseUrl() + MessageBatches.PATH + "/" + id).body());
    }

    @Test
    void theTokensOfEachBilledRequestAreCountedByCustomId() throws Exception {
        String id = JSON.readTree(post(requests("t1_c1", "t1_c2")).body()).path("id").asText();
        assertThat(standIn.billedTokensByCustomId()).isEmpty();

        standIn.endBatch(id);

        Map<String, Tokens> billed = standIn.billedTokensByCustomId();
        assertThat(billed).containsOnlyKeys("t1_c1", "t1_c2");
        assertThat(billed.get("t1_c1").input() + billed.get("t1_c1").cacheRead() + billed.get("t1_c1").cacheWrite())
                .isPositive();
        assertThat(billed.get("t1_c1").output()).isPositive();
    }

    @Test
    void aLookAtOneBatchCanBeHeldBack() throws Exception {
        String id = JSON.readTree(post(requests("d1_c1")).body()).path("id").asText();
        standIn.behaviour().batchRetrieveDelay(java.time.Duration.ofMillis(400));

        long started = System.nanoTime();
        assertThat(batch(id).path("id").asText()).isEqualTo(id);
        assertThat(System.nanoTime() - started).isGreaterThanOrEqualTo(400_000_000L);
        assertThat(MessageBatches.isRetrieve("GET", MessageBatches.PATH + "/" + id + "/results")).isFalse();
        assertThat(MessageBatches.isRetrieve("GET", MessageBatches.PATH)).isFalse();
    }

    @Test
    void aBatchStaysInProgressUntilItEndsAndThenBillsEachRequestOnce() throws Exception {
        HttpResponse<String> created = post(requests("b1_c1", "b1_c2"));

        assertThat(created.statusCode()).isEqualTo(200);
        String id = JSON.readTree(created.body()).path("id").asText();
        assertThat(batch(id).path("processing_status").asText()).isEqualTo("in_progress");
        assertThat(batch(id).path("request_counts").path("processing").asLong()).isEqualTo(2);
        assertThat(batch(id).path("results_url").isNull()).isTrue();
        assertThat(standIn.stats().batchBilled()).isZero();
        assertThat(standIn.batchesInProgress()).containsExactly(id);

        assertThat(standIn.endBatch(id)).isTrue();
        assertThat(standIn.endBatch(id)).as("a batch ends once").isFalse();

        JsonNode ended = batch(id);
        assertThat(ended.path("processing_status").asText()).isEqualTo("ended");
        assertThat(ended.path("request_counts").path("succeeded").asLong()).isEqualTo(2);
        assertThat(ended.path("request_counts").path("processing").asLong()).isZero();
        List<String> lines = get(ended.path("results_url").asText()).body().lines().toList();
        Map<String, JsonNode> byCustomId = new HashMap<>();
        for (String line : lines) {
            JsonNode result = JSON.readTree(line);
            byCustomId.put(result.path("custom_id").asText(), result.path("result"));
        }
        assertThat(byCustomId).containsOnlyKeys("b1_c1", "b1_c2");
        JsonNode first = byCustomId.get("b1_c1");
        assertThat(first.path("type").asText()).isEqualTo("succeeded");
        assertThat(first.path("message").path("usage").path("input_tokens").asLong()).isPositive();
        assertThat(first.path("message").path("content").get(0).path("text").asText()).contains("merged_rule");
        assertThat(standIn.stats().batches()).isEqualTo(1);
        assertThat(standIn.stats().batchBilled()).isEqualTo(2);
    }

    @Test
    void anExpiredBatchAnswersNothingAndBillsNothing() throws Exception {
        String id = JSON.readTree(post(requests("x1")).body()).path("id").asText();

        assertThat(standIn.expireBatch(id)).isTrue();

        JsonNode ended = batch(id);
        assertThat(ended.path("request_counts").path("expired").asLong()).isEqualTo(1);
        JsonNode line = JSON.readTree(get(ended.path("results_url").asText()).body().lines().findFirst().orElseThrow());
        assertThat(line.path("result").path("type").asText()).isEqualTo("expired");
        assertThat(standIn.stats().batchBilled()).isZero();
    }

    @Test
    void aFailingRequestIsErroredAndNotBilled() throws Exception {
        standIn.behaviour().failNext(1, Failure.SERVER_ERROR);
        String id = JSON.readTree(post(requests("e1")).body()).path("id").asText();

        standIn.endBatch(id);

        JsonNode ended = batch(id);
        JsonNode line = JSON.readTree(get(ended.path("results_url").asText()).body().lines().findFirst().orElseThrow());
        assertThat(line.path("result").path("type").asText()).isEqualTo("errored");
        assertThat(standIn.stats().batchBilled()).isZero();
    }

    @Test
    void theListIsNewestFirstAndPagedAfterAnId() throws Exception {
        String older = JSON.readTree(post(requests("a")).body()).path("id").asText();
        String newer = JSON.readTree(post(requests("b")).body()).path("id").asText();

        JsonNode page = JSON.readTree(get(standIn.anthropicBaseUrl() + MessageBatches.PATH + "?limit=1").body());
        assertThat(page.path("data").get(0).path("id").asText()).isEqualTo(newer);
        assertThat(page.path("has_more").asBoolean()).isTrue();

        JsonNode next = JSON.readTree(get(standIn.anthropicBaseUrl() + MessageBatches.PATH + "?limit=1&after_id="
                + page.path("last_id").asText()).body());
        assertThat(next.path("data").get(0).path("id").asText()).isEqualTo(older);
        assertThat(next.path("has_more").asBoolean()).isFalse();
    }

    @Test
    void refusesACustomIdOutsideAnthropicsPatternAndCreatesNothing() throws Exception {
        HttpResponse<String> refused = post(requests("has:colon"));

        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.body()).contains("^[a-zA-Z0-9_-]{1,64}$");
        assertThat(post(requests("same", "same")).statusCode()).isEqualTo(400);
        assertThat(standIn.stats().batches()).isZero();
    }

    @Test
    void refusesAnotherKey() throws Exception {
        HttpResponse<String> refused = http.send(HttpRequest.newBuilder(
                URI.create(standIn.anthropicBaseUrl() + MessageBatches.PATH)).header("x-api-key", "wrong").GET().build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(refused.statusCode()).isEqualTo(401);
    }

    private List<JsonNode> results(JsonNode ended) throws Exception {
        List<JsonNode> out = new java.util.ArrayList<>();
        for (String line : get(ended.path("results_url").asText()).body().lines().toList()) {
            out.add(JSON.readTree(line));
        }
        return out;
    }

    private static Map<String, String> typeByCustomId(List<JsonNode> lines) {
        Map<String, String> out = new HashMap<>();
        lines.forEach(l -> out.put(l.path("custom_id").asText(), l.path("result").path("type").asText()));
        return out;
    }

    @Test
    void aCanceledBatchIsCancelingUntilItEndsAndItsUnansweredRequestsAreCanceled() throws Exception {
        String id = JSON.readTree(post(requests("k1", "k2", "k3")).body()).path("id").asText();
        assertThat(standIn.answerInBatch(id, 1)).isTrue();

        HttpResponse<String> cancel = http.send(HttpRequest.newBuilder(URI.create(standIn.anthropicBaseUrl()
                        + MessageBatches.PATH + "/" + id + "/cancel")).header("x-api-key", "test-key")
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(cancel.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(cancel.body()).path("processing_status").asText()).isEqualTo("canceling");
        assertThat(batch(id).path("cancel_initiated_at").isTextual()).isTrue();
        assertThat(batch(id).path("results_url").isNull()).isTrue();
        assertThat(standIn.answerInBatch(id, 1)).as("a canceling batch answers nothing more").isFalse();

        assertThat(standIn.endBatch(id)).isTrue();

        JsonNode ended = batch(id);
        assertThat(ended.path("processing_status").asText()).isEqualTo("ended");
        assertThat(ended.path("request_counts").path("canceled").asLong()).isEqualTo(2);
        assertThat(ended.path("request_counts").path("succeeded").asLong()).isEqualTo(1);
        assertThat(typeByCustomId(results(ended)))
                .containsExactlyInAnyOrderEntriesOf(Map.of("k1", "succeeded", "k2", "canceled", "k3", "canceled"));
        assertThat(standIn.stats().batchBilled("anthropic")).isEqualTo(1);
    }

    @Test
    void aBatchThatExpiresPartDoneReturnsItsAnsweredRequestsBilledAndTheRestExpired() throws Exception {
        String id = JSON.readTree(post(requests("p1", "p2", "p3")).body()).path("id").asText();

        assertThat(standIn.expireBatch(id, 2)).isTrue();

        assertThat(typeByCustomId(results(batch(id))))
                .containsExactlyInAnyOrderEntriesOf(Map.of("p1", "succeeded", "p2", "succeeded", "p3", "expired"));
        assertThat(standIn.billedByCustomId()).containsOnlyKeys("p1", "p2");
    }

    @Test
    void everyNthRequestIsErroredInTheProvidersErrorShapeAndNotBilled() throws Exception {
        standIn.behaviour().batchErrorEvery(3);
        String id = JSON.readTree(post(requests("n1", "n2", "n3", "n4", "n5", "n6")).body()).path("id").asText();

        standIn.endBatch(id);

        List<JsonNode> lines = results(batch(id));
        assertThat(typeByCustomId(lines)).containsEntry("n3", "errored").containsEntry("n6", "errored")
                .containsEntry("n1", "succeeded");
        JsonNode errored = lines.stream().filter(l -> l.path("custom_id").asText().equals("n3")).findFirst()
                .orElseThrow();
        assertThat(errored.path("result").path("error").path("error").path("type").asText()).isEqualTo("api_error");
        assertThat(standIn.stats().batchBilled()).isEqualTo(4);
    }

    @Test
    void aSlowCreateHasMadeItsBatchBeforeItsAnswerComes() throws Exception {
        standIn.behaviour().batchCreateDelay(java.time.Duration.ofSeconds(20));

        Throwable gaveUp = null;
        try {
            http.send(HttpRequest.newBuilder(URI.create(standIn.anthropicBaseUrl() + MessageBatches.PATH))
                    .timeout(java.time.Duration.ofMillis(300)).header("x-api-key", "test-key")
                    .POST(HttpRequest.BodyPublishers.ofString(requests("slow"))).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (java.net.http.HttpTimeoutException e) {
            gaveUp = e;
        }

        assertThat(gaveUp).isNotNull();
        assertThat(standIn.batchesInProgress()).hasSize(1);
        assertThat(standIn.stats().batches("anthropic")).isEqualTo(1);
    }
}
