package io.mergesynthesis.service.testing;

import com.fasterxml.jackson.databind.JsonNode;
import io.mergesynthesis.service.core.EventPosition;
import io.mergesynthesis.service.export.EventCursor;
import io.mergesynthesis.service.export.EventExport;
import io.mergesynthesis.service.export.EventFormat;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Follows the event stream the way the endpoint serves it: plan a page, write it as NDJSON, parse it back. */
public final class StreamReader {

    private final EventExport export;
    private final UUID org;
    private String cursor;

    public StreamReader(EventExport export, UUID org) {
        this.export = export;
        this.org = org;
    }

    /** One page's events (the trailer line removed); the cursor moves to the trailer's next_cursor. */
    public List<JsonNode> next(int limit) {
        EventPosition after = EventCursor.decode(cursor);
        EventExport.Page page = export.plan(org, after, limit);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            export.write(page, EventFormat.NDJSON, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String[] lines = out.toString(StandardCharsets.UTF_8).split("\n");
        List<JsonNode> events = new ArrayList<>();
        for (int i = 0; i < lines.length - 1; i++) {
            events.add(Seed.parse(lines[i]));
        }
        JsonNode trailer = Seed.parse(lines[lines.length - 1]);
        if (!trailer.has("next_cursor") || trailer.size() != 1) {
            throw new AssertionError("the last NDJSON line is not the cursor line: " + lines[lines.length - 1]);
        }
        if (!trailer.get("next_cursor").asText().equals(page.nextCursor())) {
            throw new AssertionError("trailer and header cursors differ");
        }
        cursor = trailer.get("next_cursor").asText();
        return events;
    }

    public String cursor() {
        return cursor;
    }

    /** The stored event id of an exported line. */
    public static long eventId(JsonNode line) {
        return Long.parseLong(line.at("/event/id").asText());
    }
}
