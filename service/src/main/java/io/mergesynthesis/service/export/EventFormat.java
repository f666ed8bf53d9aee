package io.mergesynthesis.service.export;

import io.mergesynthesis.service.core.WireName;
import java.util.Locale;
import java.util.Optional;

/** The export formats, by the name used in {@code format=} and {@code --format}. */
public enum EventFormat implements WireName {
    /** One JSON object per line with Elastic Common Schema field names, then a {@code next_cursor} line. */
    NDJSON("application/x-ndjson", new EcsLines()),
    /** One ArcSight Common Event Format line per event. */
    CEF("text/plain; charset=utf-8", new CefLines());

    private final String mediaType;
    private final EventLines lines;

    EventFormat(String mediaType, EventLines lines) {
        this.mediaType = mediaType;
        this.lines = lines;
    }

    @Override
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public String mediaType() {
        return mediaType;
    }

    EventLines lines() {
        return lines;
    }

    public static Optional<EventFormat> fromWireName(String name) {
        return WireName.lookup(EventFormat.class, name);
    }
}
