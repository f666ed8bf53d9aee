package io.mergesynthesis.service.export;

import io.mergesynthesis.service.core.EventPosition;
import io.mergesynthesis.service.db.EventStream;
import io.mergesynthesis.service.db.ScopedTransactions;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.HandleCallback;

/**
 * The SIEM export, shared by {@code GET /v1/events} and the {@code export-events} command: first fix a
 * page (where it ends, hence the next cursor, known before a byte of the body is sent), then stream it.
 *
 * <p>A scope with an org reads under that org's row-level security; without one it reads every org as
 * the cross-tenant identity, which only platform callers get.
 */
public final class EventExport {

    public static final int DEFAULT_LIMIT = 1000;
    public static final int MAX_LIMIT = 10_000;

    private final ScopedTransactions transactions;

    public EventExport(ScopedTransactions transactions) {
        this.transactions = transactions;
    }

    /** A fixed page: the events after {@code after} up to and including {@code end}; no end means empty. */
    public record Page(UUID org, EventPosition after, Optional<EventPosition> end) {

        /** Where the next page starts: after this page's last event, or where this one started if it is empty. */
        public String nextCursor() {
            return EventCursor.encode(end.orElse(after));
        }
    }

    /**
     * Fixes the next page of at most {@code limit} events after {@code after}, for one org or ({@code org}
     * null) for every org.
     *
     * @throws CursorPastRetention when retention dropped events after {@code after} that this reader never read
     */
    public Page plan(UUID org, EventPosition after, int limit) {
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be from 1 to " + MAX_LIMIT);
        }
        Optional<EventPosition> end = inScope(org, handle -> {
            // A reader starting afresh reads what is kept; one with a cursor must not be led past a gap.
            if (!after.equals(EventPosition.START)) {
                Optional<EventPosition> dropped = EventStream.droppedAfter(handle, org, after);
                if (dropped.isPresent()) {
                    throw new CursorPastRetention(EventCursor.encode(after));
                }
            }
            return EventStream.endOfPage(handle, org, after, limit);
        });
        return new Page(org, after, end);
    }

    /**
     * Writes the page's events to {@code out}, one line each, and the format's trailer line if it has one.
     * Rows are fetched a batch at a time and written as they come; {@code out} is flushed, not closed.
     *
     * @return how many events were written
     */
    public long write(Page page, EventFormat format, OutputStream out) throws IOException {
        EventLines lines = format.lines();
        OutputStream buffered = new BufferedOutputStream(out, 64 * 1024);
        long written = 0;
        if (page.end().isPresent()) {
            try {
                written = inScope(page.org(), handle -> EventStream.forEach(handle, page.org(), page.after(),
                        page.end().get(), event -> writeLine(buffered, lines.line(event))));
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
        }
        String trailer = lines.trailer(page.nextCursor());
        if (trailer != null) {
            writeLine(buffered, trailer);
        }
        buffered.flush();
        return written;
    }

    private <R> R inScope(UUID org, HandleCallback<R, RuntimeException> work) {
        return org == null ? transactions.crossTenant(work) : transactions.inOrg(org, work);
    }

    private static void writeLine(OutputStream out, String line) {
        try {
            out.write(line.getBytes(StandardCharsets.UTF_8));
            out.write('\n');
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
