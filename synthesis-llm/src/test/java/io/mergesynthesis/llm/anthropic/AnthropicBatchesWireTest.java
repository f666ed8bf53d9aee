package io.mergesynthesis.llm.anthropic;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.mergesynthesis.llm.ProviderBatches.Batch;
import io.mergesynthesis.llm.ProviderBatches.Outcome;
import io.mergesynthesis.llm.ProviderBatches.Page;
import io.mergesynthesis.llm.ProviderBatches.Request;
import io.mergesynthesis.llm.ProviderBatches.Result;
import io.mergesynthesis.llm.ProviderBatches.Stage;
import io.mergesynthesis.llm.WireJson;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Message Batches read and written in the shapes Anthropic's reference shows; the JSON here is written for this
 * test, shaped as the reference's examples are.
 */
class AnthropicBatchesWireTest {

    private static JsonNode json(String text) throws Exception {
        return WireJson.MAPPER.readTree(text);
    }

    private static final String BATCH = """
            {"id":"msgbatch_01ExampleOnly","type":"message_batch","processing_status":"%s",
             "request_counts":{"processing":0,"succeeded":7,"errored":1,"canceled":0,"expired":2},
             "ended_at":"2026-11-20T11:02:03.5Z","created_at":"2026-11-20T10:15:00.123456Z",
             "expires_at":"2026-11-21T10:15:00.123456Z","archived_at":null,"cancel_initiated_at":null,
             "results_url":%s}
            """;

    @Test
    void readsABatchObjectsStageTimeAndResultsUrl() throws Exception {
        Batch ended = AnthropicBatches.batch(json(BATCH.formatted("ended",
                "\"https://api.anthropic.com/v1/messages/batches/msgbatch_01ExampleOnly/results\"")));

        assertThat(ended.id()).isEqualTo("msgbatch_01ExampleOnly");
        assertThat(ended.stage()).isEqualTo(Stage.ENDED);
        assertThat(ended.ended()).isTrue();
        assertThat(ended.createdAt()).isEqualTo(Instant.parse("2026-11-20T10:15:00.123456Z"));
        assertThat(ended.ownId()).as("Anthropic keeps no own id").isNull();
        assertThat(ended.resultsAt()).containsExactly(
                "https://api.anthropic.com/v1/messages/batches/msgbatch_01ExampleOnly/results");

        assertThat(AnthropicBatches.batch(json(BATCH.formatted("in_progress", "null"))).stage())
                .isEqualTo(Stage.IN_PROGRESS);
        Batch canceling = AnthropicBatches.batch(json(BATCH.formatted("canceling", "null")));
        assertThat(canceling.stage()).isEqualTo(Stage.CANCELING);
        assertThat(canceling.ended()).isFalse();
        assertThat(canceling.resultsAt()).isEmpty();
    }

    @Test
    void readsAListPage() throws Exception {
        Page page = AnthropicBatches.page(json("{\"data\":[" + BATCH.formatted("ended", "null") + "],"
                + "\"has_more\":true,\"first_id\":\"msgbatch_01ExampleOnly\",\"last_id\":\"msgbatch_01ExampleOnly\"}"));

        assertThat(page.batches()).extracting(Batch::id).containsExactly("msgbatch_01ExampleOnly");
        assertThat(page.hasMore()).isTrue();
        assertThat(page.lastId()).isEqualTo("msgbatch_01ExampleOnly");
        assertThat(AnthropicBatches.page(json("{\"data\":[],\"has_more\":false,\"first_id\":null,\"last_id\":null}"))
                .lastId()).isNull();
    }

    @Test
    void readsEachKindOfResultLine() throws Exception {
        Result succeeded = AnthropicBatches.result(json("""
                {"custom_id":"row-1","result":{"type":"succeeded","message":{"id":"msg_x","type":"message",
                 "role":"assistant","model":"some-model","content":[{"type":"text","text":"{}"}],
                 "stop_reason":"end_turn","usage":{"input_tokens":11,"output_tokens":5}}}}
                """));
        assertThat(succeeded.customId()).isEqualTo("row-1");
        assertThat(succeeded.outcome()).isEqualTo(Outcome.SUCCEEDED);
        assertThat(succeeded.answer().path("usage").path("input_tokens").asInt()).isEqualTo(11);
        assertThat(succeeded.error()).isNull();

        Result errored = AnthropicBatches.result(json("""
                {"custom_id":"row-2","result":{"type":"errored","error":{"type":"error",
                 "error":{"type":"invalid_request_error","message":"something about the request"}}}}
                """));
        assertThat(errored.outcome()).isEqualTo(Outcome.ERRORED);
        assertThat(errored.error()).isEqualTo("invalid_request_error");
        assertThat(errored.answer()).isNull();

        Result bareError = AnthropicBatches.result(json("""
                {"custom_id":"row-3","result":{"type":"errored","error":{"type":"api_error","message":"x"}}}
                """));
        assertThat(bareError.error()).isEqualTo("api_error");

        assertThat(AnthropicBatches.result(json("{\"custom_id\":\"row-4\",\"result\":{\"type\":\"expired\"}}"))
                .outcome()).isEqualTo(Outcome.EXPIRED);
        assertThat(AnthropicBatches.result(json("{\"custom_id\":\"row-5\",\"result\":{\"type\":\"canceled\"}}"))
                .outcome()).isEqualTo(Outcome.CANCELED);
    }

    @Test
    void writesTheCreateBodyAsRequestsOfCustomIdAndParams() throws Exception {
        var params = WireJson.MAPPER.createObjectNode().put("model", "some-model").put("max_tokens", 10);

        JsonNode body = AnthropicBatches.createBody(List.of(new Request("row-1", params)));

        assertThat(body).isEqualTo(json("{\"requests\":[{\"custom_id\":\"row-1\",\"params\":"
                + "{\"model\":\"some-model\",\"max_tokens\":10}}]}"));
    }
}
