package io.mergesynthesis.standin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.Headers;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/** The Messages API as the stand-in speaks it. */
public final class AnthropicDialect implements Dialect {

    @Override
    public String path() {
        return "/v1/messages";
    }

    @Override
    public String key(Headers headers) {
        return headers.getFirst("x-api-key");
    }

    @Override
    public Reply answer(ObjectMapper mapper, JsonNode request, String answerText, Tokens usage, boolean cut,
                        long serial) {
        ObjectNode body = mapper.createObjectNode();
        body.put("id", "msg_standin_" + serial);
        body.put("type", "message");
        body.put("role", "assistant");
        body.put("model", request.path("model").asText());
        ArrayNode content = body.putArray("content");
        ObjectNode input = Dialect.objectOrNull(mapper, answerText);
        JsonNode tools = request.path("tools");
        if (tools.isArray() && tools.size() > 0 && input != null) {
            ObjectNode use = content.addObject();
            use.put("type", "tool_use");
            use.put("id", "toolu_standin_" + serial);
            use.put("name", tools.get(0).path("name").asText());
            use.set("input", input);
            body.put("stop_reason", cut ? "max_tokens" : "tool_use");
        } else {
            ObjectNode text = content.addObject();
            text.put("type", "text");
            text.put("text", input != null ? "```json\n" + answerText + "\n```" : answerText);
            body.put("stop_reason", cut ? "max_tokens" : "end_turn");
        }
        ObjectNode counts = body.putObject("usage");
        counts.put("input_tokens", usage.input());
        counts.put("output_tokens", usage.output());
        counts.put("cache_read_input_tokens", usage.cacheRead());
        counts.put("cache_creation_input_tokens", usage.cacheWrite());
        return new Reply(200, Map.of("request-id", "req_standin_" + serial), body.toString());
    }

    @Override
    public long maxTokens(JsonNode request) {
        return request.path("max_tokens").asLong(0);
    }

    /** The tools and the system blocks up to the last one marked with {@code cache_control}. */
    @Override
    public Optional<String> cacheablePrefix(JsonNode request) {
        JsonNode system = request.path("system");
        int marked = -1;
        for (int i = 0; i < system.size(); i++) {
            if (system.get(i).has("cache_control")) {
                marked = i;
            }
        }
        if (marked < 0) {
            return Optional.empty();
        }
        StringBuilder prefix = new StringBuilder(request.path("tools").toString());
        for (int i = 0; i <= marked; i++) {
            prefix.append(system.get(i).path("text").asText(""));
        }
        return Optional.of(prefix.toString());
    }

    @Override
    public Reply error(ObjectMapper mapper, int status, String type, String message, Map<String, String> headers,
                       long serial) {
        ObjectNode body = mapper.createObjectNode();
        body.put("type", "error");
        ObjectNode error = body.putObject("error");
        error.put("type", type);
        error.put("message", message);
        Map<String, String> all = new HashMap<>(headers);
        all.put("request-id", "req_standin_" + serial);
        return new Reply(status, all, body.toString());
    }

    /**
     * Input and output tokens apart, and {@code tokens-*} as the tighter of them (or the combined limit alone, when
     * only that is set), each reset the second its bucket is full again.
     */
    @Override
    public Map<String, String> tokenHeaders(TokenState state) {
        Map<String, String> headers = new HashMap<>();
        state.input().ifPresent(b -> put(headers, "input-tokens", b));
        state.output().ifPresent(b -> put(headers, "output-tokens", b));
        Optional<TokenState.Bucket> tighter = Stream.of(state.input(), state.output())
                .flatMap(Optional::stream)
                .min(Comparator.comparingLong(TokenState.Bucket::remaining))
                .or(state::combined);
        tighter.ifPresent(b -> put(headers, "tokens", b));
        return headers;
    }

    /** Each reset as Anthropic states it: an RFC 3339 instant in whole seconds, the second the bucket is full by. */
    private static void put(Map<String, String> headers, String kind, TokenState.Bucket bucket) {
        headers.put("anthropic-ratelimit-" + kind + "-limit", Long.toString(bucket.limit()));
        headers.put("anthropic-ratelimit-" + kind + "-remaining", Long.toString(bucket.remaining()));
        headers.put("anthropic-ratelimit-" + kind + "-reset", wholeSecondUp(bucket.fullAt()).toString());
    }

    static Instant wholeSecondUp(Instant at) {
        Instant down = at.truncatedTo(ChronoUnit.SECONDS);
        return down.equals(at) ? at : down.plusSeconds(1);
    }

    /** Anthropic names the reset as an RFC 3339 instant. */
    @Override
    public Map<String, String> rateLimitHeaders(Admission admission) {
        return Map.of("anthropic-ratelimit-requests-limit", Integer.toString(admission.limit()),
                "anthropic-ratelimit-requests-remaining", Integer.toString(admission.remaining()),
                "anthropic-ratelimit-requests-reset", admission.resetsAt().toString());
    }
}
