package io.mergesynthesis.llm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.mergesynthesis.llm.ProviderReply.ProviderError;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * One provider API's wire format: how to ask for a merge, how to read what comes back, and what its headers say
 * about the request limit and when to try again. Each protocol lives in its own package and is named once, in
 * {@link ProviderType}.
 */
public interface WireProtocol {

    static WireProtocol of(ProviderType type) {
        return type.protocol();
    }

    /** The complete request for a first answer, unsized, key included; it must never be logged. */
    default HttpRequest request(ProviderSettings provider, String model, Prompt prompt, ConflictSnapshot conflict) {
        return request(provider, model, prompt, conflict, null, RequestPlan.unsized(provider));
    }

    /**
     * The complete request, key included; it must never be logged. The static prefix (tools, system prompt) comes
     * first in the body and is the same bytes for every conflict, so that a provider's prompt cache can serve it.
     *
     * @param repair null for a first answer; otherwise the refused answer goes back as the model's own turn,
     *               followed by {@link Prompt#repairMessage} with the check's findings
     * @param plan   the output budget and whether to mark the prefix cacheable
     */
    HttpRequest request(ProviderSettings provider, String model, Prompt prompt, ConflictSnapshot conflict,
                        Repair repair, RequestPlan plan);

    /**
     * A request that costs nothing and that a provider which is up answers (its model list), key included; it
     * must never be logged. It tells whether a provider found down answers again without risking a conflict.
     */
    HttpRequest probe(ProviderSettings provider);

    /** The header that carries the provider's id for a request. */
    String requestIdHeader();

    /** Reads any answer, success or error, whatever the answer mode asked for. Never throws. */
    ProviderReply read(int status, HttpHeaders headers, byte[] body);

    /**
     * The limits this protocol's headers state readably, by kind; empty when none. See {@link RateLimitHeaders}.
     *
     * @param sentAt when the request was sent, for a protocol that states its reset as a time from now
     */
    Map<RateLimitHeaders.Kind, RateLimitHeaders.Stated> statedLimits(HttpHeaders headers, Instant sentAt);

    /**
     * A wait this protocol's own headers ask for beyond the standard {@code retry-after} ones; see
     * {@link RetryAfter}. It may be zero or negative when the stated time has already passed.
     */
    default Optional<Duration> requestedWait(HttpHeaders headers, Instant now) {
        return Optional.empty();
    }

    /**
     * The body as JSON, or null when it is not JSON at all (an HTML error page from a proxy, say). Every string in
     * it is already {@linkplain ProviderText cleaned} of what the database would refuse.
     */
    static JsonNode jsonOrNull(byte[] body) {
        try {
            JsonNode node = WireJson.MAPPER.readTree(new String(body, StandardCharsets.UTF_8));
            return node == null || node.isMissingNode() ? null : ProviderText.clean(node);
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    /** The named header's first value, else the body's field, else null. */
    static String requestId(HttpHeaders headers, String header, JsonNode body) {
        return headers.firstValue(header).map(ProviderText::clean)
                .or(() -> body == null ? java.util.Optional.empty() : textField(body, "id"))
                .or(() -> body == null ? java.util.Optional.empty() : textField(body, "request_id"))
                .orElse(null);
    }

    private static java.util.Optional<String> textField(JsonNode body, String field) {
        JsonNode value = body.get(field);
        return value != null && value.isTextual() && !value.asText().isEmpty()
                ? java.util.Optional.of(value.asText()) : java.util.Optional.empty();
    }

    /** Shared by every protocol: an answer that could not be read, or an error status. */
    static ProviderReply withoutAnswer(int status, HttpHeaders headers, Usage usage, String requestId,
                                       String why, JsonNode body) {
        return new ProviderReply(status, headers, usage, requestId, null, why, ProviderError.from(body));
    }

    /**
     * Shared by every protocol: an answer whose usage counts were refused. It is not used whatever it says; the
     * client charges the call by {@link Usage#worstCase}.
     */
    static ProviderReply withUsageRefused(int status, HttpHeaders headers, String requestId,
                                          ReportedUsage.Refused refused, JsonNode body) {
        return new ProviderReply(status, headers, Usage.NONE, requestId, null,
                "the provider's token counts cannot be taken: " + refused.getMessage(), ProviderError.from(body),
                false, null, refused.getMessage());
    }
}
