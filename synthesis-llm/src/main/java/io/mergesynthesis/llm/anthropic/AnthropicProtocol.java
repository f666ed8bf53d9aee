package io.mergesynthesis.llm.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.llm.AnswerMode;
import io.mergesynthesis.llm.Prompt;
import io.mergesynthesis.llm.ProviderReply;
import io.mergesynthesis.llm.ProviderSettings;
import io.mergesynthesis.llm.RateLimitHeaders;
import io.mergesynthesis.llm.Repair;
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

    @Override
    public HttpRequest request(ProviderSettings provider, String model, Prompt prompt, ConflictSnapshot conflict,
                               Repair repair) {
        ObjectNode body = WireJson.MAPPER.createObjectNode();
        body.put("model", model);
        body.put("max_tokens", provider.getMaxOutputTokens());
        body.put("system", prompt.system());
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
        // Anthropic has no structured-output switch in this API version: json_schema falls back to text.
        if (provider.getAnswerMode() == AnswerMode.TOOL) {
            ObjectNode tool = body.putArray("tools").addObject();
            tool.put("name", prompt.toolName());
            tool.put("description", prompt.toolDescription());
            tool.set("input_schema", prompt.answerSchema());
            ObjectNode choice = body.putObject("tool_choice");
            choice.put("type", "tool");
            choice.put("name", prompt.toolName());
        }
        return HttpRequest.newBuilder(URI.create(provider.trimmedBaseUrl() + "/v1/messages"))
                .timeout(provider.getRequestTimeout())
                .header("x-api-key", provider.requireKey())
                .header("anthropic-version", provider.getAnthropicVersion())
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                .build();
    }

    @Override
    public ProviderReply read(int status, HttpHeaders headers, byte[] body) {
        JsonNode json = WireProtocol.jsonOrNull(body);
        String requestId = WireProtocol.requestId(headers, "request-id", json);
        Usage usage = json == null ? Usage.NONE : usage(json.path("usage"));
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
        StringBuilder text = new StringBuilder();
        for (JsonNode block : content) {
            if ("tool_use".equals(block.path("type").asText()) && block.has("input")) {
                return new ProviderReply(status, headers, usage, requestId, block.get("input").toString(), null,
                        ProviderReply.ProviderError.NONE);
            }
            if ("text".equals(block.path("type").asText())) {
                text.append(block.path("text").asText(""));
            }
        }
        if (text.length() == 0) {
            return WireProtocol.withoutAnswer(status, headers, usage, requestId,
                    "the answer has neither a tool call nor text", json);
        }
        return new ProviderReply(status, headers, usage, requestId, text.toString(), null,
                ProviderReply.ProviderError.NONE);
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
    static Usage usage(JsonNode usage) {
        return new Usage(usage.path("input_tokens").asLong(0), usage.path("output_tokens").asLong(0),
                usage.path("cache_read_input_tokens").asLong(0), usage.path("cache_creation_input_tokens").asLong(0));
    }
}
