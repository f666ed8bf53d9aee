package io.mergesynthesis.standin;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What each answer reports as its usage. By default the figures {@link Behaviour#usage} sets; with
 * {@link Behaviour#countsTokens} on, the stand-in counts the request and the answer ({@link StandInTokens}) and
 * keeps a prompt cache as the providers do: a cacheable prefix ({@link Dialect#cacheablePrefix}) at least
 * {@link Behaviour#cacheMinimumTokens} long is written the first time a model sees it and read every time after.
 * Unlike a provider's, its entries never expire.
 */
final class PromptCache {

    private final Set<String> seen = ConcurrentHashMap.newKeySet();

    Tokens usage(Dialect dialect, JsonNode request, String answerText, Behaviour behaviour) {
        if (!behaviour.countsTokens()) {
            return new Tokens(behaviour.inputTokens(), behaviour.outputTokens(), behaviour.cacheReadTokens(),
                    behaviour.cacheWriteTokens());
        }
        long input = inputTokens(request);
        long output = StandInTokens.count(answerText);
        String prefix = dialect.cacheablePrefix(request).orElse(null);
        long cached = prefix == null ? 0 : StandInTokens.count(prefix);
        if (cached == 0 || cached < behaviour.cacheMinimumTokens()) {
            return new Tokens(input, output, 0, 0);
        }
        boolean first = seen.add(request.path("model").asText() + '\n' + prefix);
        return first ? new Tokens(input - cached, output, 0, cached) : new Tokens(input - cached, output, cached, 0);
    }

    /**
     * What a request is charged against an input-token limit when it arrives: its input as {@link #usage} will
     * count it, less a prefix the cache already holds (a cache read does not count toward the limit, as with the
     * providers; a cache write does).
     */
    long chargedInput(Dialect dialect, JsonNode request, Behaviour behaviour) {
        if (!behaviour.countsTokens()) {
            return behaviour.inputTokens() + behaviour.cacheWriteTokens();
        }
        long input = inputTokens(request);
        String prefix = dialect.cacheablePrefix(request).orElse(null);
        long cached = prefix == null ? 0 : StandInTokens.count(prefix);
        if (cached == 0 || cached < behaviour.cacheMinimumTokens()
                || !seen.contains(request.path("model").asText() + '\n' + prefix)) {
            return input;
        }
        return input - cached;
    }

    /** Everything the model reads: the system prompt, the tools or response format, and each message. */
    static long inputTokens(JsonNode request) {
        long tokens = StandInTokens.count(Dialect.contentText(request.path("system")));
        for (String structured : new String[] {"tools", "response_format"}) {
            if (request.has(structured)) {
                tokens += StandInTokens.count(request.get(structured).toString());
            }
        }
        for (JsonNode message : request.path("messages")) {
            // A few tokens of framing per message (its role and delimiters), as providers count them.
            tokens += 4 + StandInTokens.count(Dialect.contentText(message.path("content")));
        }
        return tokens;
    }
}
