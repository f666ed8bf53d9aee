package io.mergesynthesis.standin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.Headers;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How the stand-in speaks one wire protocol: where the request arrives, where the key and the question are, and
 * the answer shapes. The stand-in writes these shapes with its own code, apart from the client's protocol classes,
 * so that the client is tested against a second reading of the wire rather than against itself.
 */
public interface Dialect {

    /** The path the protocol's requests are posted to, as seen by the stand-in. */
    String path();

    /** The key the request carries, or null. */
    String key(Headers headers);

    /**
     * The texts of the request's user messages, in order: the first is the conflict; any later one follows the
     * model's own earlier answer, as a repair request does. Both protocols keep them in {@code messages}.
     */
    default List<String> userMessages(JsonNode request) {
        List<String> texts = new ArrayList<>();
        for (JsonNode message : request.path("messages")) {
            if ("user".equals(message.path("role").asText())) {
                texts.add(contentText(message.path("content")));
            }
        }
        return texts;
    }

    /**
     * A successful answer in the form the request asked for.
     *
     * @param answerText the model's answer as text; JSON for a well-behaved model
     * @param usage      what the answer reports it used
     * @param cut        the answer stopped at the request's output budget, as the protocol says it
     */
    Reply answer(ObjectMapper mapper, JsonNode request, String answerText, Tokens usage, boolean cut, long serial);

    /** The request's output budget ({@code max_tokens} or its like); 0 when it sets none. */
    long maxTokens(JsonNode request);

    /**
     * The part of the request this protocol's provider would cache, as text, if any: for Anthropic what the
     * request marks, for OpenAI the tools and the system message, which it caches unasked.
     */
    Optional<String> cacheablePrefix(JsonNode request);

    Reply error(ObjectMapper mapper, int status, String type, String message, Map<String, String> headers, long serial);

    /** The request limit as this protocol's provider states it on every answer: limit, what is left, the reset. */
    Map<String, String> rateLimitHeaders(Admission admission);

    /**
     * The token limits as this protocol's provider states them on every answer; only the kinds it knows. A limit
     * the stand-in enforces but the protocol has no header for is enforced without a word, until its 429.
     */
    Map<String, String> tokenHeaders(TokenState state);

    /** Reads the text of a message's content, which both protocols allow as a string or a list of text parts. */
    static String contentText(JsonNode content) {
        if (content.isTextual()) {
            return content.asText();
        }
        StringBuilder text = new StringBuilder();
        for (JsonNode part : content) {
            text.append(part.path("text").asText(""));
        }
        return text.toString();
    }

    static ObjectNode objectOrNull(ObjectMapper mapper, String text) {
        try {
            JsonNode node = mapper.readTree(text);
            return node instanceof ObjectNode object ? object : null;
        } catch (Exception e) {
            return null;
        }
    }
}
