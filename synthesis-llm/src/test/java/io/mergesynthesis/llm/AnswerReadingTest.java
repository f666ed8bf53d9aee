package io.mergesynthesis.llm;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.llm.anthropic.AnthropicProtocol;
import io.mergesynthesis.llm.openai.OpenAiProtocol;
import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Reading both protocols' answers, in every form, whatever was asked for. */
class AnswerReadingTest {

    private static final HttpHeaders NO_HEADERS = HttpHeaders.of(Map.of(), (a, b) -> true);
    private static final String ANSWER = Fixtures.answer(0.8).strip();

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static HttpHeaders header(String name, String value) {
        return HttpHeaders.of(Map.of(name, List.of(value)), (a, b) -> true);
    }

    private static void assertValid(ProviderReply reply) throws AnswerRejected {
        assertThat(reply.unreadable()).isNull();
        ModelAnswer answer = AnswerCheck.check(reply.answerText(), Fixtures.conflict(), 65536);
        assertThat(answer.confidence()).isEqualTo(0.8);
        assertThat(answer.loserActions()).hasSize(2);
    }

    @Test
    void anthropicToolUse() throws Exception {
        String body = """
                {"id":"msg_1","type":"message","content":[
                  {"type":"text","text":"Here is the merge."},
                  {"type":"tool_use","id":"toolu_1","name":"submit_suggested_merge","input":%s}],
                 "usage":{"input_tokens":1200,"output_tokens":300,"cache_read_input_tokens":50,"cache_creation_input_tokens":7}}
                """.formatted(ANSWER);

        ProviderReply reply = new AnthropicProtocol().read(200, header("request-id", "req_abc"), bytes(body));

        assertValid(reply);
        assertThat(reply.usage()).isEqualTo(new Usage(1200, 300, 50, 7));
        assertThat(reply.requestId()).isEqualTo("req_abc");
    }

    @Test
    void anthropicTextJsonWithTheBodyIdForRequestId() throws Exception {
        String body = Fixtures.JSON.createObjectNode()
                .put("id", "msg_body_id")
                .set("content", Fixtures.JSON.createArrayNode().add(Fixtures.JSON.createObjectNode()
                        .put("type", "text").put("text", ANSWER)))
                .toString();

        ProviderReply reply = new AnthropicProtocol().read(200, NO_HEADERS, bytes(body));

        assertValid(reply);
        assertThat(reply.requestId()).isEqualTo("msg_body_id");
        assertThat(reply.usage()).isEqualTo(Usage.NONE);
    }

    @Test
    void openAiToolCallArgumentsString() throws Exception {
        String body = Fixtures.JSON.readTree("""
                {"id":"chatcmpl-1","choices":[{"message":{"role":"assistant","content":null,"tool_calls":[
                  {"id":"call_1","type":"function","function":{"name":"submit_suggested_merge","arguments":""}}]}}],
                 "usage":{"prompt_tokens":1500,"completion_tokens":250,"prompt_tokens_details":{"cached_tokens":1024}}}
                """).toString();
        body = body.replace("\"arguments\":\"\"", "\"arguments\":" + Fixtures.JSON.writeValueAsString(ANSWER));

        ProviderReply reply = new OpenAiProtocol().read(200, header("x-request-id", "req_openai"), bytes(body));

        assertValid(reply);
        assertThat(reply.usage()).isEqualTo(new Usage(476, 250, 1024, 0));
        assertThat(reply.requestId()).isEqualTo("req_openai");
    }

    @Test
    void openAiJsonSchemaContent() throws Exception {
        String body = "{\"id\":\"chatcmpl-2\",\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":"
                + Fixtures.JSON.writeValueAsString(ANSWER) + "}}],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":5}}";

        ProviderReply reply = new OpenAiProtocol().read(200, NO_HEADERS, bytes(body));

        assertValid(reply);
        assertThat(reply.requestId()).isEqualTo("chatcmpl-2");
        assertThat(reply.usage()).isEqualTo(new Usage(10, 5, 0, 0));
    }

    @Test
    void textInAJsonFence() throws Exception {
        String fenced = "Sure, here it is:\n```json\n" + ANSWER + "\n```\nLet me know.";
        String body = "{\"choices\":[{\"message\":{\"content\":" + Fixtures.JSON.writeValueAsString(fenced) + "}}]}";

        assertValid(new OpenAiProtocol().read(200, NO_HEADERS, bytes(body)));
    }

    @Test
    void textInABareFence() throws Exception {
        String fenced = "```\n" + ANSWER + "\n```";
        String body = "{\"content\":[{\"type\":\"text\",\"text\":" + Fixtures.JSON.writeValueAsString(fenced) + "}]}";

        assertValid(new AnthropicProtocol().read(200, NO_HEADERS, bytes(body)));
    }

    @Test
    void errorBodiesKeepTheirUsageAndError() {
        String body = "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"},"
                + "\"request_id\":\"req_err\"}";

        ProviderReply reply = new AnthropicProtocol().read(529, NO_HEADERS, bytes(body));

        assertThat(reply.answerText()).isNull();
        assertThat(reply.error().type()).isEqualTo("overloaded_error");
        assertThat(reply.requestId()).isEqualTo("req_err");
        assertThat(reply.usage()).isEqualTo(Usage.NONE);
    }

    @Test
    void bodiesThatAreNotJsonNeverThrow() {
        ProviderReply ok = new OpenAiProtocol().read(200, NO_HEADERS, bytes("<html>"));
        ProviderReply error = new AnthropicProtocol().read(502, NO_HEADERS, bytes("Bad gateway"));

        assertThat(ok.answerText()).isNull();
        assertThat(ok.unreadable()).contains("not a JSON object");
        assertThat(error.error()).isEqualTo(ProviderReply.ProviderError.NONE);
    }

    @Test
    void aRefusalIsNoAnswer() {
        ProviderReply reply = new OpenAiProtocol().read(200, NO_HEADERS,
                bytes("{\"choices\":[{\"message\":{\"content\":null,\"refusal\":\"I can't help with that.\"}}]}"));

        assertThat(reply.answerText()).isNull();
        assertThat(reply.unreadable()).contains("refused");
    }
}
