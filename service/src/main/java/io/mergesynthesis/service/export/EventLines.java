package io.mergesynthesis.service.export;

import io.mergesynthesis.service.db.EventStream.StoredEvent;

/** One export format: how an event becomes one line, and what, if anything, closes a page. */
interface EventLines {

    /** The event as one line, without the line break. */
    String line(StoredEvent event);

    /** A last line that carries the next cursor, or null when the format has no room for one. */
    String trailer(String nextCursor);
}
