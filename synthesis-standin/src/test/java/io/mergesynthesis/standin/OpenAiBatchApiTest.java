package io.mergesynthesis.standin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The stand-in's OpenAI Batch API, spoken to with plain HTTP in the shapes of OpenAI's reference. */
@Timeout(30)
class OpenAiBatchApiTest {

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

    private String url(String path) {
        return "http://127.0.0.1:" + standIn.port() + path;
    }

    private static String line(String customId) {
        return "{\"custom_id\":\"" + customId + "\",\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\"body\":"
                + "{\"model\":\"test-model\",\"max_completion_tokens\":100,\"messages\":[{\"role\":\"user\","
                + "\"content\":" + JSON.valueToTree(CONFLICT) + "}]}}";
    }

    private HttpResponse<String> upload(String jsonl) throws Exception {
        String boundary = "b0undary";
        String body = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n"
                + "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"in.jsonl\"\r\n"
                + "Content-Type: application/jsonl\r\n\r\n" + jsonl + "\r\n--" + boundary + "--\r\n";
        return http.send(HttpRequest.newBuilder(URI.create(url("/v1/files")))
                .header("authorization", "Bearer test-key")
                .header("content-type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url(path))).header("authorization", "Bearer test-key")
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url(path))).header("authorization", "Bearer test-key")
                .GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Uploads the lines and makes a batch of them; the create's answer. */
    private JsonNode batchOf(String ownId, String... customIds) throws Exception {
        StringBuilder jsonl = new StringBuilder();
        for (String customId : customIds) {
            jsonl.append(line(customId)).append('\n');
        }
        HttpResponse<String> file = upload(jsonl.toString());
        assertThat(file.statusCode()).isEqualTo(200);
        String fileId = JSON.readTree(file.body()).path("id").asText();
        HttpResponse<String> created = post("/v1/batches", "{\"input_file_id\":\"" + fileId + "\",\"endpoint\":"
                + "\"/v1/chat/completions\",\"completion_window\":\"24h\",\"metadata\":{\"merge_synthesis_batch\":\""
                + ownId + "\"}}");
        assertThat(created.statusCode()).isEqualTo(200);
        return JSON.readTree(created.body());
    }

    private JsonNode batch(String id) throws Exception {
        return JSON.readTree(get("/v1/batches/" + id).body());
    }

    /** The lines of a file, by custom_id. */
    private Map<String, JsonNode> lines(String fileId) throws Exception {
        Map<String, JsonNode> byCustomId = new HashMap<>();
        if (fileId == null) {
            return byCustomId;
        }
        HttpResponse<String> content = get("/v1/files/" + fileId + "/content");
        assertThat(content.statusCode()).isEqualTo(200);
        for (String line : content.body().lines().filter(l -> !l.isBlank()).toList()) {
            JsonNode json = JSON.readTree(line);
            byCustomId.put(json.path("custom_id").asText(), json);
        }
        return byCustomId;
    }

    private static String text(JsonNode node) {
        return node.isTextual() ? node.asText() : null;
    }

    @Test
    void aBatchIsValidatingThenInProgressUntilItEndsAndThenItsOutputFileAnswersEachRequest() throws Exception {
        JsonNode created = batchOf("own-1", "r1", "r2");
        String id = created.path("id").asText();

        assertThat(created.path("status").asText()).isEqualTo("validating");
        assertThat(created.path("object").asText()).isEqualTo("batch");
        assertThat(created.path("created_at").isIntegralNumber()).isTrue();
        assertThat(created.path("metadata").path("merge_synthesis_batch").asText()).isEqualTo("own-1");
        JsonNode running = batch(id);
        assertThat(running.path("status").asText()).isEqualTo("in_progress");
        assertThat(running.path("output_file_id").isNull()).isTrue();
        assertThat(running.path("request_counts").path("total").asInt()).isEqualTo(2);
        assertThat(standIn.batchesInProgress()).containsExactly(id);

        assertThat(standIn.endBatch(id)).isTrue();

        JsonNode ended = batch(id);
        assertThat(ended.path("status").asText()).isEqualTo("completed");
        assertThat(ended.path("request_counts").path("completed").asInt()).isEqualTo(2);
        assertThat(ended.path("error_file_id").isNull()).as("nothing failed").isTrue();
        Map<String, JsonNode> output = lines(ended.path("output_file_id").asText());
        assertThat(output).containsOnlyKeys("r1", "r2");
        JsonNode response = output.get("r1").path("response");
        assertThat(response.path("status_code").asInt()).isEqualTo(200);
        assertThat(response.path("request_id").asText()).isNotEmpty();
        assertThat(response.path("body").path("object").asText()).isEqualTo("chat.completion");
        assertThat(response.path("body").path("choices").get(0).path("message").path("content").asText())
                .contains("merged_rule");
        assertThat(output.get("r1").path("error").isNull()).isTrue();
        Stats.Snapshot stats = standIn.stats();
        assertThat(stats.batches("openai")).isEqualTo(1);
        assertThat(stats.batches("anthropic")).isZero();
        assertThat(stats.batchBilled("openai")).isEqualTo(2);
        assertThat(standIn.billedByCustomId()).containsEntry("r1", 1L).containsEntry("r2", 1L);
        assertThat(stats.billedMoreThanOnce()).isEmpty();
    }

    @Test
    void everyNthRequestErrsIntoTheErrorFileUnbilled() throws Exception {
        standIn.behaviour().batchErrorEvery(2);
        String id = batchOf("own-2", "e1", "e2", "e3", "e4").path("id").asText();

        standIn.endBatch(id);

        JsonNode ended = batch(id);
        assertThat(ended.path("status").asText()).isEqualTo("completed");
        assertThat(ended.path("request_counts").path("completed").asInt()).isEqualTo(2);
        assertThat(ended.path("request_counts").path("failed").asInt()).isEqualTo(2);
        assertThat(lines(text(ended.path("output_file_id")))).containsOnlyKeys("e1", "e3");
        Map<String, JsonNode> errors = lines(text(ended.path("error_file_id")));
        assertThat(errors).containsOnlyKeys("e2", "e4");
        assertThat(errors.get("e2").path("response").path("status_code").asInt()).isEqualTo(500);
        assertThat(errors.get("e2").path("response").path("body").path("error").path("type").asText())
                .isEqualTo("api_error");
        assertThat(standIn.stats().batchBilled("openai")).isEqualTo(2);
        assertThat(standIn.billedByCustomId()).containsOnlyKeys("e1", "e3");
    }

    @Test
    void anExpiredBatchReturnsWhatWasDoneAndExpiresTheRest() throws Exception {
        String id = batchOf("own-3", "x1", "x2", "x3").path("id").asText();

        assertThat(standIn.expireBatch(id, 1)).isTrue();

        JsonNode ended = batch(id);
        assertThat(ended.path("status").asText()).isEqualTo("expired");
        assertThat(ended.path("expired_at").isIntegralNumber()).isTrue();
        assertThat(lines(text(ended.path("output_file_id")))).containsOnlyKeys("x1");
        Map<String, JsonNode> errors = lines(text(ended.path("error_file_id")));
        assertThat(errors).containsOnlyKeys("x2", "x3");
        assertThat(errors.get("x2").path("response").isNull()).isTrue();
        assertThat(errors.get("x2").path("error").path("code").asText()).isEqualTo("batch_expired");
        assertThat(standIn.stats().batchBilled("openai")).isEqualTo(1);
    }

    @Test
    void aCancelledBatchIsCancellingUntilItEndsAndItsUndoneRequestsAreCancelled() throws Exception {
        String id = batchOf("own-4", "k1", "k2", "k3").path("id").asText();
        standIn.answerInBatch(id, 1);

        HttpResponse<String> cancel = post("/v1/batches/" + id + "/cancel", "");

        assertThat(cancel.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(cancel.body()).path("status").asText()).isEqualTo("cancelling");
        assertThat(batch(id).path("cancelling_at").isIntegralNumber()).isTrue();
        assertThat(standIn.batchesInProgress()).containsExactly(id);
        assertThat(standIn.endBatch(id)).isTrue();
        JsonNode ended = batch(id);
        assertThat(ended.path("status").asText()).isEqualTo("cancelled");
        assertThat(lines(text(ended.path("output_file_id")))).containsOnlyKeys("k1");
        Map<String, JsonNode> errors = lines(text(ended.path("error_file_id")));
        assertThat(errors).containsOnlyKeys("k2", "k3");
        assertThat(errors.get("k3").path("error").path("code").asText()).isEqualTo("batch_cancelled");
        assertThat(standIn.stats().batchBilled("openai")).isEqualTo(1);
    }

    @Test
    void anInputWithACustomIdTwiceMakesABatchThatFailsWithoutResults() throws Exception {
        String id = batchOf("own-5", "same", "same").path("id").asText();

        JsonNode failed = batch(id);

        assertThat(failed.path("status").asText()).isEqualTo("failed");
        assertThat(failed.path("errors").path("data").get(0).path("code").asText()).isEqualTo("duplicate_custom_id");
        assertThat(failed.path("errors").path("data").get(0).path("line").asInt()).isEqualTo(2);
        assertThat(failed.path("output_file_id").isNull()).isTrue();
        assertThat(failed.path("error_file_id").isNull()).isTrue();
        assertThat(standIn.batchesInProgress()).isEmpty();
        assertThat(standIn.stats().batchBilled()).isZero();
    }

    @Test
    void theListIsNewestFirstPagedAfterAnIdAndKeepsEachBatchsMetadata() throws Exception {
        String older = batchOf("own-old", "a").path("id").asText();
        String newer = batchOf("own-new", "b").path("id").asText();

        JsonNode page = JSON.readTree(get("/v1/batches?limit=1").body());
        assertThat(page.path("object").asText()).isEqualTo("list");
        assertThat(page.path("data").get(0).path("id").asText()).isEqualTo(newer);
        assertThat(page.path("data").get(0).path("metadata").path("merge_synthesis_batch").asText())
                .isEqualTo("own-new");
        assertThat(page.path("first_id").asText()).isEqualTo(newer);
        assertThat(page.path("has_more").asBoolean()).isTrue();

        JsonNode next = JSON.readTree(get("/v1/batches?limit=1&after=" + page.path("last_id").asText()).body());
        assertThat(next.path("data").get(0).path("id").asText()).isEqualTo(older);
        assertThat(next.path("has_more").asBoolean()).isFalse();
    }

    @Test
    void resultsComeShuffledBySeedAndTheSameSeedGivesTheSameOrder() throws Exception {
        standIn.behaviour().batchResultSeed(42L);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            ids.add("s" + i);
        }
        String id = batchOf("own-6", ids.toArray(String[]::new)).path("id").asText();
        standIn.endBatch(id);
        String file = batch(id).path("output_file_id").asText();

        List<String> first = get("/v1/files/" + file + "/content").body().lines()
                .map(l -> l.replaceAll(".*\"custom_id\":\"(s\\d+)\".*", "$1")).toList();
        List<String> second = get("/v1/files/" + file + "/content").body().lines()
                .map(l -> l.replaceAll(".*\"custom_id\":\"(s\\d+)\".*", "$1")).toList();

        assertThat(first).containsExactlyInAnyOrderElementsOf(ids).isNotEqualTo(ids).isEqualTo(second);
    }

    @Test
    void aSlowCreateMakesItsBatchBeforeItAnswers() throws Exception {
        standIn.behaviour().batchCreateDelay(Duration.ofSeconds(20));
        HttpResponse<String> file = upload(line("slow1") + "\n");
        String fileId = JSON.readTree(file.body()).path("id").asText();
        HttpClient impatient = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

        Throwable gaveUp = null;
        try {
            impatient.send(HttpRequest.newBuilder(URI.create(url("/v1/batches"))).timeout(Duration.ofMillis(300))
                    .header("authorization", "Bearer test-key").POST(HttpRequest.BodyPublishers.ofString(
                            "{\"input_file_id\":\"" + fileId + "\",\"endpoint\":\"/v1/chat/completions\","
                                    + "\"completion_window\":\"24h\",\"metadata\":{\"merge_synthesis_batch\":\"own-7\"}}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
        } catch (HttpTimeoutException e) {
            gaveUp = e;
        }

        assertThat(gaveUp).isNotNull();
        assertThat(standIn.batchesInProgress()).hasSize(1);
        JsonNode listed = JSON.readTree(get("/v1/batches?limit=10").body()).path("data").get(0);
        assertThat(listed.path("metadata").path("merge_synthesis_batch").asText()).isEqualTo("own-7");
    }

    @Test
    void refusesAnotherKeyAndAnUploadOfAnotherPurpose() throws Exception {
        HttpResponse<String> refused = http.send(HttpRequest.newBuilder(URI.create(url("/v1/batches")))
                .header("authorization", "Bearer wrong").GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(refused.statusCode()).isEqualTo(401);

        String body = "--x\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nfine-tune\r\n"
                + "--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.jsonl\"\r\n\r\n{}\r\n--x--\r\n";
        HttpResponse<String> wrongPurpose = http.send(HttpRequest.newBuilder(URI.create(url("/v1/files")))
                .header("authorization", "Bearer test-key").header("content-type", "multipart/form-data; boundary=x")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(wrongPurpose.statusCode()).isEqualTo(400);
        assertThat(standIn.stats().batches()).isZero();
    }

    @Test
    void aRefusedBatchCallIsA429WithARetryAfter() throws Exception {
        standIn.behaviour().refuseNextBatchCalls(1);

        HttpResponse<String> refused = get("/v1/batches");

        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("retry-after")).contains("7");
        assertThat(get("/v1/batches").statusCode()).isEqualTo(200);
    }
}
