package io.mergesynthesis.service.export;

import io.mergesynthesis.service.core.EventPosition;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The opaque text form of a stream position, as clients see it in {@code Next-Cursor}. A version prefix
 * inside lets the encoding change later without breaking cursors that cron jobs have saved.
 */
public final class EventCursor {

    private static final String VERSION = "e1";

    private EventCursor() {
    }

    public static String encode(EventPosition position) {
        String raw = VERSION + ":" + Long.toUnsignedString(position.txId()) + ":" + position.id();
        return Base64.getUrlEncoder().withoutPadding().encodeToString(raw.getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * The position a cursor stands for; null or empty text means the start of the stream.
     *
     * @throws IllegalArgumentException when the text is not a cursor this service issued
     */
    public static EventPosition decode(String text) {
        if (text == null || text.isEmpty()) {
            return EventPosition.START;
        }
        try {
            String raw = new String(Base64.getUrlDecoder().decode(text), StandardCharsets.US_ASCII);
            String[] parts = raw.split(":", -1);
            if (parts.length == 3 && parts[0].equals(VERSION)) {
                long id = Long.parseLong(parts[2]);
                if (id >= 0) {
                    return new EventPosition(Long.parseUnsignedLong(parts[1]), id);
                }
            }
        } catch (IllegalArgumentException ignored) {
            // a malformed cursor gets the one message below
        }
        throw new IllegalArgumentException(
                "cursor is not one this service issued: pass back the Next-Cursor value unchanged, or omit it to start");
    }
}
