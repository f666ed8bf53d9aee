package io.mergesynthesis.llm;

import static io.mergesynthesis.llm.Fixtures.conflict;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.mergesynthesis.llm.anthropic.AnthropicProtocol;
import io.mergesynthesis.llm.openai.OpenAiProtocol;
import java.net.http.HttpRequest;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The requests each protocol sends, read back as the provider would see them. */
class RequestBuildingTest {

    private final Prompt prompt = Prompt.shipped();

    private JsonNode body(HttpRequest request) throws Exception {
        return Fixtures.JSON.readTree(Fixtures.body(request));
    }

    @Test
    void anthropicToolModeForcesTheAnswerTool() throws Exception {
        ProviderSettings provider = Fixtures.provider(ProviderType.ANTHROPIC, "https://anthropic.example/", AnswerMode.TOOL);
        provider.setMaxOutputTokens(900);
        provider.setRequestTimeout(Duration.ofSeconds(12));

        HttpRequest request = new AnthropicProtocol().request(provider, "test-model", prompt, conflict());
        JsonNode body = body(request);

        assertThat(request.method()).isEqualTo("POST");
        assertThat(request.uri().toString()).isEqualTo("https://anthropic.example/v1/messages");
        assertThat(request.headers().firstValue("x-api-key")).contains(Fixtures.KEY);
        assertThat(request.headers().firstValue("anthropic-version")).contains("2023-06-01");
        assertThat(request.headers().firstValue("content-type")).contains("application/json");
        assertThat(request.headers().firstValue("authorization")).isEmpty();
        assertThat(request.timeout()).contains(Duration.ofSeconds(12));
        assertThat(body.path("model").asText()).isEqualTo("test-model");
        assertThat(body.path("max_tokens").asInt()).isEqualTo(900);
        assertThat(body.path("system").get(0).path("text").asText()).isEqualTo(prompt.system(Prompt.SchemaPlace.REQUEST));
        assertThat(body.path("messages")).hasSize(1);
        assertThat(body.path("messages").get(0).path("role").asText()).isEqualTo("user");
        assertThat(body.path("tools").get(0).path("name").asText()).isEqualTo("submit_suggested_merge");
        assertThat(body.path("tools").get(0).path("input_schema").path("required")).hasSize(5);
        assertThat(body.path("tool_choice").path("type").asText()).isEqualTo("tool");
        assertThat(body.path("tool_choice").path("name").asText()).isEqualTo("submit_suggested_merge");
    }

    @Test
    void anthropicTextModeSendsNoTools() throws Exception {
        ProviderSettings provider = Fixtures.provider(ProviderType.ANTHROPIC, "https://anthropic.example", AnswerMode.TEXT);

        JsonNode body = body(new AnthropicProtocol().request(provider, "test-model", prompt, conflict()));

        assertThat(body.has("tools")).isFalse();
        assertThat(body.has("tool_choice")).isFalse();
    }

    @Test
    void theUserMessageCarriesTheConflictAndNothingAboutTheOrg() throws Exception {
        JsonNode message = Fixtures.JSON.readTree(prompt.userMessage(conflict()));

        assertThat(message.path("conflict_id").asText()).isEqualTo(conflict().conflictId().toString());
        assertThat(message.path("action").asText()).isEqualTo("tool_call");
        assertThat(message.path("target").asText()).isEqualTo("jira.create_issue");
        assertThat(message.path("winner_policy_id").asText()).isEqualTo("pol-org-1");
        assertThat(message.path("rules")).hasSize(3);
        assertThat(message.path("rules").get(2).path("scope").asText()).isEqualTo("org_unit");
        assertThat(message.path("rules").get(2).path("scope_id").asText()).isEqualTo("ou-77");
        assertThat(message.has("org_id")).isFalse();
    }

    @Test
    void theSystemPromptWritesTheSchemaOutOnlyWhenTheRequestDoesNotCarryIt() {
        String compactSchema = prompt.answerSchema().toString();
        assertThat(prompt.system(Prompt.SchemaPlace.PROMPT)).doesNotContain("{{").contains(compactSchema);
        assertThat(prompt.system(Prompt.SchemaPlace.REQUEST)).doesNotContain("{{").doesNotContain("\"loser_actions\"");
        assertThat(prompt.answerSchema().has("title")).isFalse();
    }

    @Test
    void openAiToolModeForcesTheFunction() throws Exception {
        ProviderSettings provider = Fixtures.provider(ProviderType.OPENAI, "https://openai.example/v1", AnswerMode.TOOL);

        HttpRequest request = new OpenAiProtocol().request(provider, "test-model", prompt, conflict());
        JsonNode body = body(request);

        assertThat(request.uri().toString()).isEqualTo("https://openai.example/v1/chat/completions");
        assertThat(request.headers().firstValue("authorization")).contains("Bearer " + Fixtures.KEY);
        assertThat(request.headers().firstValue("x-api-key")).isEmpty();
        assertThat(body.path("messages").get(0).path("role").asText()).isEqualTo("system");
        assertThat(body.path("messages").get(1).path("role").asText()).isEqualTo("user");
        assertThat(body.path("max_completion_tokens").asInt()).isEqualTo(1024);
        JsonNode function = body.path("tools").get(0);
        assertThat(function.path("type").asText()).isEqualTo("function");
        assertThat(function.path("function").path("name").asText()).isEqualTo("submit_suggested_merge");
        assertThat(function.path("function").path("parameters").path("additionalProperties").asBoolean(true)).isFalse();
        assertThat(body.path("tool_choice").path("function").path("name").asText()).isEqualTo("submit_suggested_merge");
        assertThat(body.has("response_format")).isFalse();
    }

    @Test
    void openAiJsonSchemaModeAsksForStrictStructuredOutput() throws Exception {
        ProviderSettings provider = Fixtures.provider(ProviderType.OPENAI, "https://openai.example/v1", AnswerMode.JSON_SCHEMA);

        JsonNode body = body(new OpenAiProtocol().request(provider, "test-model", prompt, conflict()));

        JsonNode format = body.path("response_format");
        assertThat(format.path("type").asText()).isEqualTo("json_schema");
        assertThat(format.path("json_schema").path("name").asText()).isEqualTo("submit_suggested_merge");
        assertThat(format.path("json_schema").path("strict").asBoolean()).isTrue();
        assertThat(format.path("json_schema").path("schema").path("required")).hasSize(5);
        assertThat(body.has("tools")).isFalse();
    }

    @Test
    void openAiTextModeAsksInThePromptAlone() throws Exception {
        ProviderSettings provider = Fixtures.provider(ProviderType.OPENAI, "http://127.0.0.1:1/v1", AnswerMode.TEXT);

        JsonNode body = body(new OpenAiProtocol().request(provider, "test-model", prompt, conflict()));

        assertThat(body.has("tools")).isFalse();
        assertThat(body.has("response_format")).isFalse();
        assertThat(body.path("messages").get(0).path("content").asText()).contains("one JSON object");
    }
}
