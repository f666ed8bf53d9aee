package io.mergesynthesis.service.worker.batch;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The custom_id of a conflict's request in a batch: the batch row's id and the conflict's id, each as 22
 * characters of URL-safe base64. Anthropic allows {@code ^[a-zA-Z0-9_-]{1,64}$}: two UUIDs written out (73
 * characters with a separator) do not fit, these 44 do. The batch row's id in every custom_id is how a batch
 * whose create went unanswered is recognised at the provider.
 */
public record BatchCustomId(UUID batchId, UUID conflictId) {

    /** What Anthropic accepts as a custom_id. */
    public static final Pattern ALLOWED = Pattern.compile("^[a-zA-Z0-9_-]{1,64}$");
    private static final int PART = 22;

    public String encoded() {
        return part(batchId) + part(conflictId);
    }

    /** The ids a custom_id of ours carries; empty for any other. */
    public static Optional<BatchCustomId> decode(String customId) {
        if (customId == null || customId.length() != 2 * PART || !ALLOWED.matcher(customId).matches()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new BatchCustomId(uuid(customId.substring(0, PART)), uuid(customId.substring(PART))));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static String part(UUID id) {
        ByteBuffer bytes = ByteBuffer.allocate(16).putLong(id.getMostSignificantBits())
                .putLong(id.getLeastSignificantBits());
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
    }

    private static UUID uuid(String part) {
        ByteBuffer bytes = ByteBuffer.wrap(Base64.getUrlDecoder().decode(part));
        return new UUID(bytes.getLong(), bytes.getLong());
    }
}
