package io.mergesynthesis.standin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.Headers;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** Chat Completions as the stand-in speaks it. */
public final class OpenAiDialect implements Dialect {

    @Override
    public String path() {
        return "/v1/chat/completions";
    }

    private static final String BEARER = "Bearer ";

    @Override
    public String key(Headers headers) {
        String authorization = headers.getFirst("authorization");
        return authorization != null && authorization.startsWith(BEARER) ? authorization.substring(BEARER.length()) : null;
    }

    @Override
    public Reply answer(ObjectMapper mapper, JsonNode request, String answerText, Tokens usage, boolean cut,
                        long serial) {
        ObjectNode body = mapper.createObjectNode();
        body.put("id", "chatcmpl-standin-" + serial);
        body.put("object", "chat.completion");
        body.put("model", request.path("model").asText());
        ObjectNode choice = body.putArray("choices").addObject();
        choice.put("index", 0);
        ObjectNode message = choice.putObject("message");
        message.put("role", "assistant");
        JsonNode tools = request.path("tools");
        boolean json = Dialect.objectOrNull(mapper, answerText) != null;
        if (tools.isArray() && tools.size() > 0) {
            message.putNull("content");
            ObjectNode call = message.putArray("tool_calls").addObject();
            call.put("id", "call_standin_" + serial);
            call.put("type", "function");
            ObjectNode function = call.putObject("function");
            function.put("name", tools.get(0).path("function").path("name").asText());
            function.put("arguments", answerText);
            choice.put("finish_reason", cut ? "length" : "tool_calls");
        } else if ("json_schema".equals(request.path("response_format").path("type").asText()) || !json) {
            message.put("content", answerText);
            choice.put("finish_reason", cut ? "length" : "stop");
        } else {
            message.put("content", "```json\n" + answerText + "\n```");
            choice.put("finish_reason", cut ? "length" : "stop");
        }
        // OpenAI bills no cache write: a prefix cached for the first time is plain input.
        ObjectNode counts = body.putObject("usage");
        long prompt = usage.input() + usage.cacheRead() + usage.cacheWrite();
        counts.put("prompt_tokens", prompt);
        counts.put("completion_tokens", usage.output());
        counts.put("total_tokens", prompt + usage.output());
        counts.putObject("prompt_tokens_details").put("cached_tokens", usage.cacheRead());
        return new Reply(200, Map.of("x-request-id", "req-standin-" + serial), body.toString());
    }

    @Override
    public long maxTokens(JsonNode request) {
        return request.path("max_completion_tokens").asLong(request.path("max_tokens").asLong(0));
    }

    /** OpenAI caches a long enough prefix unasked: the tools or response format, then the system message. */
    @Override
    public Optional<String> cacheablePrefix(JsonNode request) {
        JsonNode first = request.path("messages").path(0);
        if (!"system".equals(first.path("role").asText())) {
            return Optional.empty();
        }
        return Optional.of(request.path("tools").toString() + request.path("response_format").toString()
                + Dialect.contentText(first.path("content")));
    }

    @Override
    public Reply error(ObjectMapper mapper, int status, String type, String message, Map<String, String> headers,
                       long serial) {
        ObjectNode body = mapper.createObjectNode();
        ObjectNode error = body.putObject("error");
        error.put("message", message);
        error.put("type", type);
        error.put("code", type);
        Map<String, String> all = new HashMap<>(headers);
        all.put("x-request-id", "req-standin-" + serial);
        return new Reply(status, all, body.toString());
    }

    /** OpenAI names the reset as the time until it, written the way Go prints a duration ({@code 250ms}, {@code 1s}). */
    @Override
    public Map<String, String> rateLimitHeaders(Admission admission) {
        Duration left = Duration.between(Instant.now(), admission.resetsAt());
        return Map.of("x-ratelimit-limit-requests", Integer.toString(admission.limit()),
                "x-ratelimit-remaining-requests", Integer.toString(admission.remaining()),
                "x-ratelimit-reset-requests", goDuration(left.isNegative() ? Duration.ZERO : left));
    }

    /** One combined token limit, input and output together, reset as the time until its bucket is full. */
    @Override
    public Map<String, String> tokenHeaders(TokenState state) {
        if (state.combined().isEmpty()) {
            return Map.of();
        }
        TokenState.Bucket bucket = state.combined().get();
        Duration left = Duration.between(Instant.now(), bucket.fullAt());
        return Map.of("x-ratelimit-limit-tokens", Long.toString(bucket.limit()),
                "x-ratelimit-remaining-tokens", Long.toString(bucket.remaining()),
                "x-ratelimit-reset-tokens", goDuration(left.isNegative() ? Duration.ZERO : left));
    }

    static String goDuration(Duration d) {
        long millis = d.toMillis();
        if (millis < 1000) {
            return millis + "ms";
        }
        long minutes = millis / 60_000;
        String seconds = new BigDecimal(millis % 60_000).movePointLeft(3).stripTrailingZeros().toPlainString();
        return minutes > 0 ? minutes + "m" + seconds + "s" : seconds + "s";
    }
}
