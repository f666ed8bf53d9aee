package io.mergesynthesis.llm.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.mergesynthesis.llm.ProviderBatches.Batch;
import io.mergesynthesis.llm.ProviderBatches.Outcome;
import io.mergesynthesis.llm.ProviderBatches.Page;
import io.mergesynthesis.llm.ProviderBatches.Request;
import io.mergesynthesis.llm.ProviderBatches.Result;
import io.mergesynthesis.llm.ProviderBatches.Stage;
import io.mergesynthesis.llm.WireJson;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * OpenAI's Batch API read and written in the shapes its reference shows; the JSON here is written for this test,
 * shaped as the reference's examples are.
 */
class OpenAiBatchesWireTest {

    private static JsonNode json(String text) throws Exception {
        return WireJson.MAPPER.readTree(text);
    }

    private static final String BATCH = """
            {"id":"batch_example01","object":"batch","endpoint":"/v1/chat/completions","errors":null,
             "input_file_id":"file-in01","completion_window":"24h","status":"%s",
             "output_file_id":%s,"error_file_id":%s,"created_at":1763633700,"in_progress_at":1763633712,
             "expires_at":1763720100,"finalizing_at":null,"completed_at":null,"failed_at":null,"expired_at":null,
             "cancelling_at":null,"cancelled_at":null,
             "request_counts":{"total":100,"completed":95,"failed":5},
             "metadata":{"merge_synthesis_batch":"6f1c0d2e","note":"nightly"}}
            """;

    private static Batch batch(String status, String output, String errors) throws Exception {
        return OpenAiBatches.batch(json(BATCH.formatted(status, output, errors)));
    }

    @ParameterizedTest
    @CsvSource({"validating,IN_PROGRESS", "in_progress,IN_PROGRESS", "finalizing,IN_PROGRESS",
            "cancelling,CANCELING", "completed,ENDED", "failed,ENDED", "expired,ENDED", "cancelled,ENDED"})
    void mapsEachStatusToAStage(String status, Stage stage) throws Exception {
        assertThat(batch(status, "null", "null").stage()).isEqualTo(stage);
    }

    @Test
    void readsABatchObjectsOwnIdUnixTimeAndFiles() throws Exception {
        Batch completed = batch("completed", "\"file-out01\"", "\"file-err01\"");

        assertThat(completed.id()).isEqualTo("batch_example01");
        assertThat(completed.createdAt()).isEqualTo(Instant.ofEpochSecond(1763633700));
        assertThat(completed.ownId()).isEqualTo("6f1c0d2e");
        assertThat(completed.providerStatus()).isEqualTo("completed");
        assertThat(completed.resultsAt()).containsExactly("file-out01", "file-err01");
        assertThat(batch("failed", "null", "null").resultsAt()).containsExactly(null, null);
        assertThat(OpenAiBatches.batch(json("{\"id\":\"batch_b\",\"status\":\"in_progress\",\"created_at\":1,"
                + "\"metadata\":null}")).ownId()).isNull();
    }

    @Test
    void readsAListPage() throws Exception {
        Page page = OpenAiBatches.page(json("{\"object\":\"list\",\"data\":["
                + BATCH.formatted("in_progress", "null", "null") + "],\"first_id\":\"batch_example01\","
                + "\"last_id\":\"batch_example01\",\"has_more\":false}"));

        assertThat(page.batches()).extracting(Batch::ownId).containsExactly("6f1c0d2e");
        assertThat(page.hasMore()).isFalse();
        assertThat(page.lastId()).isEqualTo("batch_example01");
    }

    @Test
    void readsEachKindOfResultLine() throws Exception {
        Result succeeded = OpenAiBatches.result(json("""
                {"id":"batch_req_1","custom_id":"row-1","response":{"status_code":200,"request_id":"req_1",
                 "body":{"id":"chatcmpl-1","object":"chat.completion","created":1763633800,"model":"some-model",
                  "choices":[{"index":0,"message":{"role":"assistant","content":"{}"},"finish_reason":"stop"}],
                  "usage":{"prompt_tokens":20,"completion_tokens":4,"total_tokens":24}}},"error":null}
                """));
        assertThat(succeeded.outcome()).isEqualTo(Outcome.SUCCEEDED);
        assertThat(succeeded.customId()).isEqualTo("row-1");
        assertThat(succeeded.answer().path("usage").path("prompt_tokens").asInt()).isEqualTo(20);

        Result refused = OpenAiBatches.result(json("""
                {"id":"batch_req_2","custom_id":"row-2","response":{"status_code":400,"request_id":"req_2",
                 "body":{"error":{"message":"something about the request","type":"invalid_request_error",
                  "param":null,"code":null}}},"error":null}
                """));
        assertThat(refused.outcome()).isEqualTo(Outcome.ERRORED);
        assertThat(refused.error()).isEqualTo("invalid_request_error");
        assertThat(refused.answer()).isNull();

        Result codeOnly = OpenAiBatches.result(json("""
                {"id":"batch_req_3","custom_id":"row-3","response":{"status_code":500,"request_id":"req_3",
                 "body":{"error":{"message":"x","type":null,"code":"server_error"}}},"error":null}
                """));
        assertThat(codeOnly.error()).isEqualTo("server_error");

        Result expired = OpenAiBatches.result(json("""
                {"id":"batch_req_4","custom_id":"row-4","response":null,
                 "error":{"code":"batch_expired","message":"not done in time"}}
                """));
        assertThat(expired.outcome()).isEqualTo(Outcome.EXPIRED);

        Result cancelled = OpenAiBatches.result(json("""
                {"id":"batch_req_5","custom_id":"row-5","response":null,
                 "error":{"code":"batch_cancelled","message":"the batch was cancelled"}}
                """));
        assertThat(cancelled.outcome()).isEqualTo(Outcome.CANCELED);

        Result other = OpenAiBatches.result(json("""
                {"id":"batch_req_6","custom_id":"row-6","response":null,
                 "error":{"code":"token_limit_exceeded","message":"x"}}
                """));
        assertThat(other.outcome()).isEqualTo(Outcome.ERRORED);
        assertThat(other.error()).isEqualTo("token_limit_exceeded");
    }

    @Test
    void writesOneInputLinePerRequestAndTheCreateBody() throws Exception {
        var body = WireJson.MAPPER.createObjectNode().put("model", "some-model").put("max_completion_tokens", 10);
        List<Request> requests = List.of(new Request("row-1", body), new Request("row-2", body));

        StringBuilder file = new StringBuilder();
        OpenAiBatches.jsonl(requests).forEach(part -> file.append(new String(part, StandardCharsets.UTF_8)));
        List<JsonNode> lines = new ArrayList<>();
        for (String line : file.toString().split("\n")) {
            lines.add(json(line));
        }

        assertThat(file.toString()).endsWith("\n");
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).isEqualTo(json("{\"custom_id\":\"row-1\",\"method\":\"POST\","
                + "\"url\":\"/v1/chat/completions\",\"body\":{\"model\":\"some-model\",\"max_completion_tokens\":10}}"));
        assertThat(OpenAiBatches.createBody("file-in01", "6f1c0d2e")).isEqualTo(json("{\"input_file_id\":\"file-in01\","
                + "\"endpoint\":\"/v1/chat/completions\",\"completion_window\":\"24h\","
                + "\"metadata\":{\"merge_synthesis_batch\":\"6f1c0d2e\"}}"));
    }

    @Test
    void splitsALargeFileIntoPartsOnLineBoundaries() {
        var body = WireJson.MAPPER.createObjectNode().put("filler", "x".repeat(4000));
        List<Request> requests = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            requests.add(new Request("row-" + i, body));
        }

        List<byte[]> parts = OpenAiBatches.jsonl(requests);

        assertThat(parts).hasSizeGreaterThan(1);
        assertThat(parts).allSatisfy(part -> assertThat(part[part.length - 1]).isEqualTo((byte) '\n'));
    }
}
