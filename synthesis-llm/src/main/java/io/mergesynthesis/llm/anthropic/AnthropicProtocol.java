package io.mergesynthesis.llm.anthropic;

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
import io.mergesynthesis.llm.TokenEstimate;
import io.mergesynthesis.llm.Usage;
import io.mergesynthesis.llm.WireJson;
import io.mergesynthesis.llm.WireProtocol;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import java.net.URI;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/** The Anthropic Messages API: {@code POST {baseUrl}/v1/messages}. */
public final class AnthropicProtocol implements WireProtocol {

    /**
     * The prefix comes first and is the same for every conflict: tools, then the system prompt, marked
     * cacheable when it is long enough for the model; the conflict and the budget follow it.
     */
    @Override
    public HttpRequest request(ProviderSettings provider, String model, Prompt prompt, ConflictSnapshot conflict,
                               Repair repair, RequestPlan plan) {
        ObjectNode body = body(provider, model, prompt, conflict, repair, plan);
        return HttpRequest.newBuilder(URI.create(provider.trimmedBaseUrl() + "/v1/messages"))
                .timeout(provider.getRequestTimeout())
                .header("x-api-key", provider.requireKey())
                .header("anthropic-version", provider.getAnthropicVersion())
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                .build();
    }

    /**
     * The body of {@link #request}: also the {@code params} of a request in a message batch, which is the same
     * request the interactive lane would send.
     */
    public static ObjectNode body(ProviderSettings provider, String model, Prompt prompt, ConflictSnapshot conflict,
                                  Repair repair, RequestPlan plan) {
        ObjectNode body = WireJson.MAPPER.createObjectNode();
        body.put("model", model);
        // Anthropic has no structured-output switch in this API version: json_schema falls back to text.
        boolean tool = provider.getAnswerMode() == AnswerMode.TOOL;
        if (tool) {
            ObjectNode definition = body.putArray("tools").addObject();
            definition.put("name", prompt.toolName());
            definition.put("description", prompt.toolDescription());
            definition.set("input_schema", prompt.answerSchema());
            ObjectNode choice = body.putObject("tool_choice");
            choice.put("type", "tool");
            choice.put("name", prompt.toolName());
        }
        String system = prompt.system(tool ? Prompt.SchemaPlace.REQUEST : Prompt.SchemaPlace.PROMPT);
        ObjectNode systemBlock = body.putArray("system").addObject();
        systemBlock.put("type", "text");
        systemBlock.put("text", system);
        long prefix = TokenEstimate.of(system) + (tool ? TokenEstimate.of(body.path("tools").toString()) : 0);
        if (plan.marksPrefixOf(prefix)) {
            // Tools and system are cached together: Anthropic's prefix runs tools, system, messages.
            systemBlock.putObject("cache_control").put("type", "ephemeral");
        }
        ArrayNode messages = body.putArray("messages");
        ObjectNode message = messages.addObject();
        message.put("role", "user");
        message.put("content", prompt.userMessage(conflict));
        if (repair != null) {
            // The refused answer goes back as text even when a tool was forced: a tool_use turn would need a
            // tool_result to follow it, and what follows is the check's findings.
            messages.addObject().put("role", "assistant").put("content", repair.refusedAnswer());
            messages.addObject().put("role", "user").put("content", prompt.repairMessage(repair.findings()));
        }
        // Last, like everything that differs between calls: the bytes before the conflict stay the same.
        body.put("max_tokens", plan.maxTokens());
        return body;
    }

    @Override
    public HttpRequest probe(ProviderSettings provider) {
        return HttpRequest.newBuilder(URI.create(provider.trimmedBaseUrl() + "/v1/models?limit=1"))
                .timeout(provider.getRequestTimeout())
                .header("x-api-key", provider.requireKey())
                .header("anthropic-version", provider.getAnthropicVersion())
                .GET()
                .build();
    }

    @Override
    public String requestIdHeader() {
        return "request-id";
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
        JsonNode content = json.path("content");
        if (!content.isArray()) {
            return WireProtocol.withoutAnswer(status, headers, usage, requestId, "the answer has no content", json);
        }
        boolean cut = "max_tokens".equals(json.path("stop_reason").asText());
        StringBuilder text = new StringBuilder();
        for (JsonNode block : content) {
            if ("tool_use".equals(block.path("type").asText()) && block.has("input")) {
                return new ProviderReply(status, headers, usage, requestId, block.get("input").toString(), null,
                        ProviderReply.ProviderError.NONE, cut, json.path("model").asText(null));
            }
            if ("text".equals(block.path("type").asText())) {
                text.append(block.path("text").asText(""));
            }
        }
        if (text.length() == 0 && !cut) {
            return WireProtocol.withoutAnswer(status, headers, usage, requestId,
                    "the answer has neither a tool call nor text", json);
        }
        return new ProviderReply(status, headers, usage, requestId, text.toString(), null,
                ProviderReply.ProviderError.NONE, cut, json.path("model").asText(null));
    }

    @Override
    public Map<RateLimitHeaders.Kind, RateLimitHeaders.Stated> statedLimits(HttpHeaders headers, Instant sentAt) {
        return AnthropicHeaders.stated(headers);
    }

    @Override
    public Optional<java.time.Duration> requestedWait(HttpHeaders headers, Instant now) {
        return AnthropicHeaders.resetWait(headers, now);
    }

    /** Anthropic already reports uncached input apart from cache reads and writes. */
    static Usage usage(JsonNode usage) throws ReportedUsage.Refused {
        return new Usage(ReportedUsage.count(usage, "input_tokens"), ReportedUsage.count(usage, "output_tokens"),
                ReportedUsage.count(usage, "cache_read_input_tokens"),
                ReportedUsage.count(usage, "cache_creation_input_tokens"));
    }
}
