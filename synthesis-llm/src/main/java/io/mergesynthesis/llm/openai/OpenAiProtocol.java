package io.mergesynthesis.llm.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.llm.AnswerMode;
import io.mergesynthesis.llm.Prompt;
import io.mergesynthesis.llm.ProviderReply;
import io.mergesynthesis.llm.ProviderSettings;
import io.mergesynthesis.llm.RateLimitHeaders;
import io.mergesynthesis.llm.ReportedUsage;
import io.mergesynthesis.llm.Repair;
import io.mergesynthesis.llm.RequestPlan;
import io.mergesynthesis.llm.Usage;
import io.mergesynthesis.llm.WireJson;
import io.mergesynthesis.llm.WireProtocol;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import java.net.URI;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.time.Instant;
import java.util.Map;

/** OpenAI Chat Completions, {@code POST {baseUrl}/chat/completions}; also what vLLM, Ollama and LiteLLM serve. */
public final class OpenAiProtocol implements WireProtocol {

    /**
     * The prefix comes first and is byte for byte the same for every conflict (tools or response format, then the
     * system message), so that OpenAI's automatic prompt caching can apply; the conflict and the budget follow.
     */
    @Override
    public HttpRequest request(ProviderSettings provider, String model, Prompt prompt, ConflictSnapshot conflict,
                               Repair repair, RequestPlan plan) {
        ObjectNode body = body(provider, model, prompt, conflict, repair, plan);
        return HttpRequest.newBuilder(URI.create(provider.trimmedBaseUrl() + "/chat/completions"))
                .timeout(provider.getRequestTimeout())
                .header("authorization", "Bearer " + provider.requireKey())
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                .build();
    }

    /**
     * The body of {@link #request}: also the {@code body} of a request in a batch's input file, which is the same
     * request the interactive lane would send.
     */
    public static ObjectNode body(ProviderSettings provider, String model, Prompt prompt, ConflictSnapshot conflict,
                                  Repair repair, RequestPlan plan) {
        ObjectNode body = WireJson.MAPPER.createObjectNode();
        body.put("model", model);
        switch (provider.getAnswerMode()) {
            case TOOL -> {
                ObjectNode function = body.putArray("tools").addObject()
                        .put("type", "function")
                        .putObject("function");
                function.put("name", prompt.toolName());
                function.put("description", prompt.toolDescription());
                function.set("parameters", prompt.answerSchema());
                function.put("strict", true);
                ObjectNode choice = body.putObject("tool_choice");
                choice.put("type", "function");
                choice.putObject("function").put("name", prompt.toolName());
            }
            case JSON_SCHEMA -> {
                ObjectNode format = body.putObject("response_format");
                format.put("type", "json_schema");
                ObjectNode schema = format.putObject("json_schema");
                schema.put("name", prompt.toolName());
                schema.put("strict", true);
                schema.set("schema", prompt.answerSchema());
            }
            case TEXT -> {
                // The system prompt writes the schema out.
            }
        }
        Prompt.SchemaPlace place = provider.getAnswerMode() == AnswerMode.TEXT
                ? Prompt.SchemaPlace.PROMPT : Prompt.SchemaPlace.REQUEST;
        ArrayNode messages = body.putArray("messages");
        ObjectNode system = messages.addObject();
        system.put("role", "system");
        system.put("content", prompt.system(place));
        ObjectNode user = messages.addObject();
        user.put("role", "user");
        user.put("content", prompt.userMessage(conflict));
        if (repair != null) {
            messages.addObject().put("role", "assistant").put("content", repair.refusedAnswer());
            messages.addObject().put("role", "user").put("content", prompt.repairMessage(repair.findings()));
        }
        body.put("max_completion_tokens", plan.maxTokens());
        return body;
    }

    @Override
    public HttpRequest probe(ProviderSettings provider) {
        return HttpRequest.newBuilder(URI.create(provider.trimmedBaseUrl() + "/models"))
                .timeout(provider.getRequestTimeout())
                .header("authorization", "Bearer " + provider.requireKey())
                .GET()
                .build();
    }

    @Override
    public String requestIdHeader() {
        return "x-request-id";
    }

    @Override
    public ProviderReply read(int status, HttpHeaders headers, byte[] body) {
        JsonNode json = WireProtocol.jsonOrNull(body);
        String requestId = WireProtocol.requestId(headers, requestIdHeader(), json);
        Usage usage;
        try {
            usage = json == null ? Usage.NONE : usage(ReportedUsage.block(json));
        } catch (ReportedUsage.Refused refused) {
            return WireProtocol.withUsageRefused(status, headers, requestId, refused, json);
        }
        if (status < 200 || status >= 300) {
            return WireProtocol.withoutAnswer(status, headers, usage, requestId, "HTTP " + status, json);
        }
        if (json == null || !json.isObject()) {
            return WireProtocol.withoutAnswer(status, headers, usage, requestId, "the body is not a JSON object", null);
        }
        JsonNode choice = json.path("choices").path(0);
        JsonNode message = choice.path("message");
        if (!message.isObject()) {
            return WireProtocol.withoutAnswer(status, headers, usage, requestId, "the answer has no message", json);
        }
        boolean cut = "length".equals(choice.path("finish_reason").asText());
        JsonNode arguments = message.path("tool_calls").path(0).path("function").path("arguments");
        if (arguments.isTextual()) {
            return answered(status, headers, usage, requestId, arguments.asText(), cut, json);
        }
        if (arguments.isObject()) {
            // Some compatible servers send the arguments as an object instead of a string.
            return answered(status, headers, usage, requestId, arguments.toString(), cut, json);
        }
        JsonNode content = message.path("content");
        if ((content.isTextual() && !content.asText().isBlank()) || cut) {
            return answered(status, headers, usage, requestId, content.asText(""), cut, json);
        }
        String why = message.path("refusal").isTextual()
                ? "the model refused to answer" : "the answer has neither a tool call nor text";
        return WireProtocol.withoutAnswer(status, headers, usage, requestId, why, json);
    }

    private static ProviderReply answered(int status, HttpHeaders headers, Usage usage, String requestId, String text,
                                          boolean cut, JsonNode body) {
        return new ProviderReply(status, headers, usage, requestId, text, null, ProviderReply.ProviderError.NONE, cut,
                body.path("model").asText(null));
    }

    @Override
    public Map<RateLimitHeaders.Kind, RateLimitHeaders.Stated> statedLimits(HttpHeaders headers, Instant sentAt) {
        return OpenAiHeaders.stated(headers, sentAt);
    }

    /** OpenAI counts cached tokens inside {@code prompt_tokens}; the ledger keeps them apart. */
    static Usage usage(JsonNode usage) throws ReportedUsage.Refused {
        long prompt = ReportedUsage.count(usage, "prompt_tokens");
        long cached = ReportedUsage.count(usage.path("prompt_tokens_details"), "cached_tokens");
        return new Usage(Math.max(0, prompt - cached), ReportedUsage.count(usage, "completion_tokens"), cached, 0);
    }
}
