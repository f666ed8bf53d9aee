package io.mergesynthesis.service.inbox;

import io.mergesynthesis.service.core.Storable;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.UUID;

/**
 * The opaque keyset position of an inbox page: the last row's {@code (received_at, id)}. Opaque so that
 * clients pass it back untouched and the encoding can change behind a version prefix.
 */
public record PageCursor(Instant receivedAt, UUID id) {

    private static final String VERSION = "c1";

    public String encode() {
        long micros = receivedAt.getEpochSecond() * 1_000_000L + receivedAt.getNano() / 1_000L;
        String raw = VERSION + ":" + micros + ":" + id;
        return Base64.getUrlEncoder().withoutPadding().encodeToString(raw.getBytes(StandardCharsets.UTF_8));
    }

    /** @throws IllegalArgumentException when the text is not a cursor this service issued */
    public static PageCursor decode(String text) {
        try {
            String raw = new String(Base64.getUrlDecoder().decode(text), StandardCharsets.UTF_8);
            String[] parts = raw.split(":", -1);
            if (parts.length != 3 || !parts[0].equals(VERSION)) {
                throw new IllegalArgumentException("unknown cursor format");
            }
            long micros = Long.parseLong(parts[1]);
            Instant at = Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
            // Every cursor this service issues holds a stored received_at; any other instant (some PostgreSQL
            // cannot even compare with) is a forged or damaged cursor.
            if (!Storable.instant(at)) {
                throw new IllegalArgumentException("cursor time out of range");
            }
            return new PageCursor(at, UUID.fromString(parts[2]));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("cursor is not one this service issued: pass back next_cursor unchanged", e);
        }
    }
}
