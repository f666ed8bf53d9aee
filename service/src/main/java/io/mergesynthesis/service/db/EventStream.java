package io.mergesynthesis.service.db;

import io.mergesynthesis.service.core.EventPosition;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Query;
import org.jdbi.v3.core.statement.StatementContext;

/**
 * Reads {@code conflict_events} in stream order, {@code (tx_id, id)}, for the SIEM export.
 *
 * <p>The order is by the writing transaction's id rather than by the event id, and a page never reaches
 * the oldest transaction still running ({@code pg_snapshot_xmin}): every event below that mark belongs to a
 * transaction that has finished, and every transaction that could still add an event has an id at or above
 * it. So the rows below a position, once read, never change, and a cursor can neither skip an event that
 * commits late nor deliver one twice. The price: events wait until every transaction older than theirs in
 * the whole cluster has finished.
 *
 * <p>Both methods run on a handle that {@link ScopedTransactions} has scoped: one org under row-level
 * security (then {@code orgId} is that org, repeated for the planner), or every org ({@code orgId} null).
 */
public final class EventStream {

    /** How many rows the driver fetches per round trip while streaming; a page is never held whole. */
    static final int FETCH_SIZE = 500;

    // Each statement twice, for one org (its id repeated for the planner, as the class says) and for every org.
    private static final String END_OF_PAGE_OF_ORG = SqlFiles.of(EventStream.class, "end_of_page_of_org");
    private static final String END_OF_PAGE = SqlFiles.of(EventStream.class, "end_of_page");
    private static final String PAGE_OF_ORG = SqlFiles.of(EventStream.class, "page_of_org");
    private static final String PAGE = SqlFiles.of(EventStream.class, "page");

    private static final String DROPPED_AFTER = SqlFiles.of(EventStream.class, "dropped_after");

    /** How event_stream_horizon names the platform-wide stream (schema 15): no org has the nil UUID. */
    private static final UUID EVERY_ORG = new UUID(0, 0);

    private EventStream() {
    }

    /**
     * The position of the last event that retention dropped from this stream (one org's, or every org's when
     * {@code orgId} is null), if it lies after {@code after}: the reader at {@code after} missed it and every
     * dropped event before it. Empty when nothing the reader has yet to read was dropped.
     */
    public static Optional<EventPosition> droppedAfter(Handle handle, UUID orgId, EventPosition after) {
        return handle.createQuery(DROPPED_AFTER)
                .bind("org", orgId == null ? EVERY_ORG : orgId)
                .bind("afterTx", Long.toUnsignedString(after.txId()))
                .bind("afterId", after.id())
                .map((rs, ctx) -> new EventPosition(Long.parseUnsignedLong(rs.getString("tx_id")), rs.getLong("id")))
                .findOne();
    }

    /** One event with the conflict fields that never change after ingest. */
    public record StoredEvent(
            long id,
            long txId,
            UUID orgId,
            UUID conflictId,
            String eventType,
            Instant occurredAt,
            String detailsJson,
            String dedupKey,
            String action,
            String target,
            String winnerPolicyId) {

        public EventPosition position() {
            return new EventPosition(txId, id);
        }
    }

    /**
     * The position of the last event of the page after {@code after}: at most {@code limit} events, all of
     * finished transactions. Empty when no finished event follows {@code after}.
     */
    public static Optional<EventPosition> endOfPage(Handle handle, UUID orgId, EventPosition after, int limit) {
        String sql = orgId == null ? END_OF_PAGE : END_OF_PAGE_OF_ORG;
        Query query = handle.createQuery(sql)
                .bind("afterTx", Long.toUnsignedString(after.txId()))
                .bind("afterId", after.id())
                .bind("limit", limit);
        if (orgId != null) {
            query.bind("org", orgId);
        }
        return query.map((rs, ctx) -> new EventPosition(Long.parseUnsignedLong(rs.getString("tx_id")), rs.getLong("id")))
                .findOne();
    }

    /**
     * Hands every event in {@code (after, upTo]} to {@code sink}, in stream order, fetching {@value #FETCH_SIZE}
     * rows at a time (the driver uses a server-side cursor because the handle is inside a transaction). The
     * range is fixed: {@code upTo} came from {@link #endOfPage}, so every transaction that wrote in it had
     * finished. Returns how many events were handed over.
     */
    public static long forEach(Handle handle, UUID orgId, EventPosition after, EventPosition upTo, Consumer<StoredEvent> sink) {
        String sql = orgId == null ? PAGE : PAGE_OF_ORG;
        Query query = handle.createQuery(sql)
                .setFetchSize(FETCH_SIZE)
                .bind("afterTx", Long.toUnsignedString(after.txId()))
                .bind("afterId", after.id())
                .bind("upToTx", Long.toUnsignedString(upTo.txId()))
                .bind("upToId", upTo.id());
        if (orgId != null) {
            query.bind("org", orgId);
        }
        long[] count = {0};
        query.map(EventStream::map).useStream(events -> events.forEach(event -> {
            sink.accept(event);
            count[0]++;
        }));
        return count[0];
    }

    private static StoredEvent map(ResultSet rs, StatementContext ctx) throws SQLException {
        return new StoredEvent(
                rs.getLong("id"),
                Long.parseUnsignedLong(rs.getString("tx_id")),
                rs.getObject("org_id", UUID.class),
                rs.getObject("conflict_id", UUID.class),
                rs.getString("event_type"),
                rs.getTimestamp("occurred_at").toInstant(),
                rs.getString("details"),
                rs.getString("dedup_key"),
                rs.getString("action"),
                rs.getString("target"),
                rs.getString("winner_policy_id"));
    }
}
