package io.mergesynthesis.service.db;

import io.mergesynthesis.service.core.ConflictReport;
import io.mergesynthesis.service.core.InboxCounts;
import io.mergesynthesis.service.core.InboxStatus;
import io.mergesynthesis.service.core.MergeFieldOrder;
import io.mergesynthesis.service.core.Resolution;
import io.mergesynthesis.service.core.StoredConflict;
import io.mergesynthesis.service.core.SynthesisState;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Query;
import org.jdbi.v3.core.statement.StatementContext;

/**
 * The SQL of {@code policy_conflicts} for the HTTP API. Every method runs on a handle whose transaction
 * {@link ScopedTransactions} has already scoped to one org; row-level security enforces that scope, and
 * the explicit {@code org_id} predicates are there for the planner.
 */
public final class ConflictStore {

    /** Notified (in the inserting transaction) when new conflicts wait for synthesis. */
    public static final String PENDING_CHANNEL = "policy_conflicts_pending";

    private static final String COLUMNS = """
            id, org_id, dedup_key, action, target, rules::text AS rules, winner_policy_id, detected_at,
            received_at, synthesis_state, attempts, last_failure_reason, failure_marker,
            suggested_merge::text AS suggested_merge, merge_check_version, synthesized_at, inbox_status,
            acknowledged_at, resolved_at, resolution, resolution_note""";

    private ConflictStore() {
    }

    /** The outcome of storing one report: its id, and whether this call created it. */
    public record Stored(UUID id, boolean created) {
    }

    /** Stores a report unless its {@code (org_id, dedup_key)} is already there; either way returns the id. */
    public static Stored insertIfAbsent(Handle handle, ConflictReport report, String rulesJson) {
        Optional<UUID> inserted = handle.createQuery("""
                        INSERT INTO policy_conflicts
                            (id, org_id, dedup_key, action, target, rules, winner_policy_id, detected_at)
                        VALUES (:id, :org, :key, :action, :target, CAST(:rules AS jsonb), :winner, :detectedAt)
                        ON CONFLICT (org_id, dedup_key) DO NOTHING
                        RETURNING id""")
                .bind("id", UUID.randomUUID())
                .bind("org", report.orgId())
                .bind("key", report.dedupKey())
                .bind("action", report.action().wireName())
                .bind("target", report.target())
                .bind("rules", rulesJson)
                .bind("winner", report.winnerPolicyId())
                .bind("detectedAt", Timestamp.from(report.detectedAt()))
                .mapTo(UUID.class)
                .findOne();
        if (inserted.isPresent()) {
            return new Stored(inserted.get(), true);
        }
        // A concurrent insert of the same key waited on the unique index and committed first; this
        // statement's fresh snapshot sees it.
        UUID existing = handle.createQuery("SELECT id FROM policy_conflicts WHERE org_id = :org AND dedup_key = :key")
                .bind("org", report.orgId())
                .bind("key", report.dedupKey())
                .mapTo(UUID.class)
                .one();
        return new Stored(existing, false);
    }

    /** Wakes idle workers in every replica once this transaction commits. */
    public static void notifyPending(Handle handle) {
        handle.createQuery("SELECT pg_notify(:channel, '')").bind("channel", PENDING_CHANNEL)
                .mapTo(String.class).one();
    }

    public static Optional<StoredConflict> find(Handle handle, UUID orgId, UUID id) {
        return handle.createQuery("SELECT " + COLUMNS + " FROM policy_conflicts WHERE org_id = :org AND id = :id")
                .bind("org", orgId)
                .bind("id", id)
                .map(ConflictStore::map)
                .findOne();
    }

    /** Filters and a keyset position for one inbox page. Null fields do not filter. */
    public record PageRequest(InboxStatus inboxStatus, SynthesisState synthesisState, Instant afterReceivedAt,
                              UUID afterId, int limit) {
    }

    /** One org's conflicts, newest first, strictly after the keyset position if one is given. */
    public static List<StoredConflict> page(Handle handle, UUID orgId, PageRequest request) {
        StringBuilder sql = new StringBuilder("SELECT " + COLUMNS + " FROM policy_conflicts WHERE org_id = :org");
        if (request.inboxStatus() != null) {
            sql.append(" AND inbox_status = :inbox");
        }
        if (request.synthesisState() != null) {
            sql.append(" AND synthesis_state = :state");
        }
        if (request.afterId() != null) {
            sql.append(" AND (received_at, id) < (:afterReceivedAt, :afterId)");
        }
        sql.append(" ORDER BY received_at DESC, id DESC LIMIT :limit");
        Query query = handle.createQuery(sql.toString())
                .bind("org", orgId)
                .bind("limit", request.limit());
        if (request.inboxStatus() != null) {
            query.bind("inbox", request.inboxStatus().wireName());
        }
        if (request.synthesisState() != null) {
            query.bind("state", request.synthesisState().wireName());
        }
        if (request.afterId() != null) {
            query.bind("afterReceivedAt", Timestamp.from(request.afterReceivedAt())).bind("afterId", request.afterId());
        }
        return query.map(ConflictStore::map).list();
    }

    /** How many of the org's conflicts are in each synthesis state and each inbox status: one scan of its rows. */
    public static InboxCounts counts(Handle handle, UUID orgId) {
        Map<SynthesisState, Long> states = zeros(SynthesisState.class);
        Map<InboxStatus, Long> statuses = zeros(InboxStatus.class);
        long[] total = {0};
        handle.createQuery("""
                        SELECT synthesis_state, inbox_status, count(*) AS n
                          FROM policy_conflicts WHERE org_id = :org
                         GROUP BY synthesis_state, inbox_status""")
                .bind("org", orgId)
                .map((rs, ctx) -> {
                    long n = rs.getLong("n");
                    states.merge(SynthesisState.ofStored(rs.getString("synthesis_state")), n, Long::sum);
                    statuses.merge(InboxStatus.ofStored(rs.getString("inbox_status")), n, Long::sum);
                    total[0] += n;
                    return n;
                })
                .list();
        return new InboxCounts(states, statuses, total[0]);
    }

    private static <E extends Enum<E>> Map<E, Long> zeros(Class<E> words) {
        Map<E, Long> map = new EnumMap<>(words);
        for (E word : words.getEnumConstants()) {
            map.put(word, 0L);
        }
        return map;
    }

    /**
     * Moves an open conflict to acknowledged. Empty when no row changed: the conflict is not this org's, does
     * not exist, or was no longer open when this statement got its row lock.
     */
    public static Optional<StoredConflict> acknowledge(Handle handle, UUID orgId, UUID id) {
        return handle.createQuery("""
                        UPDATE policy_conflicts
                           SET inbox_status = 'acknowledged', acknowledged_at = now(), updated_at = now()
                         WHERE org_id = :org AND id = :id AND inbox_status = 'open'
                        RETURNING\s""" + COLUMNS)
                .bind("org", orgId)
                .bind("id", id)
                .map(ConflictStore::map)
                .findOne();
    }

    /**
     * Resolves a conflict that is not resolved yet; accepting a suggestion also needs a suggested merge. The
     * conditions sit in the UPDATE itself, so of concurrent calls exactly one changes the row: the others wait
     * for its row lock, re-check the conditions against the committed row and match nothing. Empty when no
     * row changed.
     */
    public static Optional<StoredConflict> resolve(Handle handle, UUID orgId, UUID id, Resolution resolution,
                                                   String note) {
        return handle.createQuery("""
                        UPDATE policy_conflicts
                           SET inbox_status = 'resolved', resolution = :resolution, resolution_note = :note,
                               resolved_at = now(), updated_at = now()
                         WHERE org_id = :org AND id = :id AND inbox_status <> 'resolved'
                           AND (:resolution <> 'accepted_suggestion' OR suggested_merge IS NOT NULL)
                        RETURNING\s""" + COLUMNS)
                .bind("org", orgId)
                .bind("id", id)
                .bind("resolution", resolution.wireName())
                .bind("note", note)
                .map(ConflictStore::map)
                .findOne();
    }

    private static StoredConflict map(ResultSet rs, StatementContext ctx) throws SQLException {
        return new StoredConflict(
                rs.getObject("id", UUID.class),
                rs.getObject("org_id", UUID.class),
                rs.getString("dedup_key"),
                rs.getString("action"),
                rs.getString("target"),
                rs.getString("rules"),
                rs.getString("winner_policy_id"),
                instant(rs, "detected_at"),
                instant(rs, "received_at"),
                SynthesisState.ofStored(rs.getString("synthesis_state")),
                rs.getInt("attempts"),
                rs.getString("last_failure_reason"),
                rs.getString("failure_marker"),
                // jsonb keeps its keys sorted by length: back to the schema's order, here, for every reader.
                MergeFieldOrder.inSchemaOrder(rs.getString("suggested_merge")),
                rs.getObject("merge_check_version", Integer.class),
                instant(rs, "synthesized_at"),
                InboxStatus.ofStored(rs.getString("inbox_status")),
                instant(rs, "acknowledged_at"),
                instant(rs, "resolved_at"),
                Resolution.ofStored(rs.getString("resolution")),
                rs.getString("resolution_note"));
    }

    private static Instant instant(ResultSet rs, String column) throws SQLException {
        Timestamp value = rs.getTimestamp(column);
        return value == null ? null : value.toInstant();
    }
}
