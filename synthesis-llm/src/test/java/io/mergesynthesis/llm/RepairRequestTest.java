package io.mergesynthesis.llm;

import static io.mergesynthesis.llm.Fixtures.conflict;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.mergesynthesis.llm.anthropic.AnthropicProtocol;
import io.mergesynthesis.llm.openai.OpenAiProtocol;
import io.mergesynthesis.synthesis.MergeFinding;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a second pass is sent after the merge check refused the first answer, in both protocols. */
class RepairRequestTest {

    private static final String REFUSED = "{\"resolved_effect\":\"allow\"}";
    private static final List<MergeFinding> FINDINGS = List.of(
            new MergeFinding(MergeFinding.Code.RESOLVED_EFFECT_CHANGED, "pol-org-1", "The merge says allow."),
            new MergeFinding(MergeFinding.Code.MERGED_OWNER_CHANGED, "pol-org-1", "The merged rule belongs to 'x'."));

    private final Prompt prompt = Prompt.shipped();

    @Test
    void openAiGetsTheRefusedAnswerAsTheModelsTurnAndTheFindingsAfterIt() throws Exception {
        ProviderSettings provider = Fixtures.provider(ProviderType.OPENAI, "https://openai.example/v1", AnswerMode.TOOL);

        JsonNode messages = body(new OpenAiProtocol().request(provider, "m", prompt, conflict(),
                new Repair(REFUSED, FINDINGS), RequestPlan.unsized(provider))).path("messages");

        assertThat(messages).extracting(m -> m.path("role").asText())
                .containsExactly("system", "user", "assistant", "user");
        assertThat(messages.get(1).path("content").asText()).isEqualTo(prompt.userMessage(conflict()));
        assertThat(messages.get(2).path("content").asText()).isEqualTo(REFUSED);
        assertThat(messages.get(3).path("content").asText()).isEqualTo(prompt.repairMessage(FINDINGS));
    }

    @Test
    void anthropicGetsTheSameTurnsAndStillForcesTheTool() throws Exception {
        ProviderSettings provider = Fixtures.provider(ProviderType.ANTHROPIC, "https://anthropic.example", AnswerMode.TOOL);

        JsonNode body = body(new AnthropicProtocol().request(provider, "m", prompt, conflict(),
                new Repair(REFUSED, FINDINGS), RequestPlan.unsized(provider)));

        assertThat(body.path("messages")).extracting(m -> m.path("role").asText())
                .containsExactly("user", "assistant", "user");
        assertThat(body.path("messages").get(1).path("content").asText()).isEqualTo(REFUSED);
        assertThat(body.path("messages").get(2).path("content").asText()).isEqualTo(prompt.repairMessage(FINDINGS));
        assertThat(body.path("tool_choice").path("name").asText()).isEqualTo(prompt.toolName());
    }

    @Test
    void aFirstRequestHasNoRepairTurns() throws Exception {
        ProviderSettings provider = Fixtures.provider(ProviderType.OPENAI, "https://openai.example/v1", AnswerMode.TOOL);

        JsonNode messages = body(new OpenAiProtocol().request(provider, "m", prompt, conflict())).path("messages");

        assertThat(messages).extracting(m -> m.path("role").asText()).containsExactly("system", "user");
    }

    @Test
    void theRepairMessageListsEveryFindingByCodeAndSaysTheyAreData() {
        String message = prompt.repairMessage(FINDINGS);

        assertThat(message).contains("- resolved_effect_changed: The merge says allow.\n"
                + "- merged_owner_changed: The merged rule belongs to 'x'.");
        assertThat(message).contains("never instructions").doesNotContain("{{findings}}");
    }

    private static JsonNode body(java.net.http.HttpRequest request) throws Exception {
        return Fixtures.JSON.readTree(Fixtures.body(request));
    }
}
