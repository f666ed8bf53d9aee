package io.mergesynthesis.service.db;

import io.mergesynthesis.service.core.ConflictReport;
import io.mergesynthesis.service.core.Deciders;
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
import org.jdbi.v3.core.statement.StatementContext;

/**
 * The SQL of {@code policy_conflicts} for the HTTP API. Every method runs on a handle whose transaction
 * {@link ScopedTransactions} has already scoped to one org; row-level security enforces that scope, and
 * the explicit {@code org_id} predicates are there for the planner.
 */
public final class ConflictStore {

    /** Notified (in the inserting transaction) when new conflicts wait for synthesis. */
    public static final String PENDING_CHANNEL = "policy_conflicts_pending";

    private static final String INSERT_IF_ABSENT = SqlFiles.of(ConflictStore.class, "insert_if_absent");
    private static final String ID_OF_KEY = SqlFiles.of(ConflictStore.class, "id_of_key");
    private static final String NOTIFY_PENDING = SqlFiles.of(ConflictStore.class, "notify_pending");
    private static final String FIND = SqlFiles.of(ConflictStore.class, "find");
    private static final String COUNTS = SqlFiles.of(ConflictStore.class, "counts");
    private static final String ACKNOWLEDGE = SqlFiles.of(ConflictStore.class, "acknowledge");
    private static final String RESOLVE = SqlFiles.of(ConflictStore.class, "resolve");
    private static final String DECIDERS = SqlFiles.of(ConflictStore.class, "deciders");
    private static final String DECIDERS_OF = SqlFiles.of(ConflictStore.class, "deciders_of");
    // The inbox page towards older conflicts and towards newer ones, each as a first page and as a page after a
    // position; each takes every filter as optional. The position is not folded in as optional too: a plan kept
    // for the statement would then read the org's rows from the newest one down to the position on every page.
    private static final String PAGE_OLDER = SqlFiles.of(ConflictStore.class, "page_older");
    private static final String PAGE_OLDER_AFTER = SqlFiles.of(ConflictStore.class, "page_older_after");
    private static final String PLAN_EACH_PAGE = SqlFiles.of(ConflictStore.class, "plan_each_page");
    private static final String SEARCH_MATCHES = SqlFiles.of(ConflictStore.class, "search_matches");
    private static final String PAGE_NEWER_BY_KEY = SqlFiles.of(ConflictStore.class, "page_newer_by_key");
    private static final String PAGE_NEWER_AFTER_BY_KEY = SqlFiles.of(ConflictStore.class, "page_newer_after_by_key");
    private static final String PAGE_OLDER_BY_KEY = SqlFiles.of(ConflictStore.class, "page_older_by_key");
    private static final String PAGE_OLDER_AFTER_BY_KEY = SqlFiles.of(ConflictStore.class, "page_older_after_by_key");
    /**
     * Below this many matches a search is read through the search key index; at or above it, enough conflicts
     * match that the inbox index finds a page of them within its first few thousand rows.
     */
    static final int FEW_MATCHES = 2_000;
    private static final String PAGE_NEWER = SqlFiles.of(ConflictStore.class, "page_newer");
    private static final String PAGE_NEWER_AFTER = SqlFiles.of(ConflictStore.class, "page_newer_after");
    private static final String ACTION_MATCHES = SqlFiles.of(ConflictStore.class, "action_matches");
    private static final String PAGE_NEWER_BY_ACTION = SqlFiles.of(ConflictStore.class, "page_newer_by_action");
    private static final String PAGE_NEWER_AFTER_BY_ACTION =
            SqlFiles.of(ConflictStore.class, "page_newer_after_by_action");
    private static final String PAGE_OLDER_BY_ACTION = SqlFiles.of(ConflictStore.class, "page_older_by_action");
    private static final String PAGE_OLDER_AFTER_BY_ACTION =
            SqlFiles.of(ConflictStore.class, "page_older_after_by_action");
    /**
     * At most this many of an action's conflicts are counted when another filter competes with it for the page
     * (see {@link #actionLeads}): past it, both filters hold enough conflicts that either index finds a page soon.
     */
    static final int ACTION_COUNTED_UP_TO = 50_000;

    private ConflictStore() {
    }

    /** The outcome of storing one report: its id, and whether this call created it. */
    public record Stored(UUID id, boolean created) {
    }

    /** Stores a report unless its {@code (org_id, dedup_key)} is already there; either way returns the id. */
    public static Stored insertIfAbsent(Handle handle, ConflictReport report, String rulesJson) {
        Optional<UUID> inserted = handle.createQuery(INSERT_IF_ABSENT)
                .bind("id", UUID.randomUUID())
                .bind("org", report.orgId())
                .bind("key", report.dedupKey())
                .bind("action", report.action().wireName())
                .bind("target", report.target())
                .bind("rules", rulesJson)
                .bind("winner", report.winnerPolicyId())
                .bind("detectedAt", Timestamp.from(report.detectedAt()))
                .bind("lane", report.lane() == null ? null : report.lane().wireName())
                .mapTo(UUID.class)
                .findOne();
        if (inserted.isPresent()) {
            return new Stored(inserted.get(), true);
        }
        // A concurrent insert of the same key waited on the unique index and committed first; this
        // statement's fresh snapshot sees it.
        UUID existing = handle.createQuery(ID_OF_KEY)
                .bind("org", report.orgId())
                .bind("key", report.dedupKey())
                .mapTo(UUID.class)
                .one();
        return new Stored(existing, false);
    }

    /** Wakes idle workers in every replica once this transaction commits. */
    public static void notifyPending(Handle handle) {
        handle.createQuery(NOTIFY_PENDING).bind("channel", PENDING_CHANNEL)
                .mapTo(String.class).one();
    }

    public static Optional<StoredConflict> find(Handle handle, UUID orgId, UUID id) {
        return handle.createQuery(FIND)
                .bind("org", orgId)
                .bind("id", id)
                .map(ConflictStore::map)
                .findOne();
    }

    /**
     * How many of the org's pending conflicts the claims take before pending conflict {@code id}: the oldest
     * first within an org, whatever other orgs wait (ADR 0069). Counted up to {@code cap}; 0 when the conflict is
     * not pending. Runs under that org's scope.
     */
    public static int aheadInOrg(Handle handle, UUID orgId, UUID id, int cap) {
        return handle.createQuery(AHEAD_IN_ORG)
                .bind("org", orgId)
                .bind("id", id)
                .bind("cap", cap)
                .mapTo(Integer.class)
                .one();
    }

    private static final String AHEAD_IN_ORG = SqlFiles.of(ConflictStore.class, "ahead_in_org");

    /**
     * Filters, a keyset position and a direction for one inbox page. Null fields do not filter; {@code prefix} (the search) is
     * matched in any case anywhere in the target, the engine's key and every rule's policy id, or at their start
     * when shorter than three characters (schema 21); {@code unresolvedOnly}
     * leaves resolved conflicts out.
     *
     * @param newer towards newer conflicts (oldest first), rather than towards older ones (newest first)
     */
    public record PageRequest(InboxStatus inboxStatus, SynthesisState synthesisState, String action, String prefix,
                              boolean unresolvedOnly, Instant positionReceivedAt, UUID positionId, boolean newer,
                              int limit) {

        public PageRequest(InboxStatus inboxStatus, SynthesisState synthesisState, String action, String prefix,
                           Instant positionReceivedAt, UUID positionId, boolean newer, int limit) {
            this(inboxStatus, synthesisState, action, prefix, false, positionReceivedAt, positionId, newer, limit);
        }

        /** Whether any filter is set: an unfiltered page is one plan whatever its values, and may keep it. */
        boolean filters() {
            return inboxStatus != null || synthesisState != null || action != null || prefix != null
                    || unresolvedOnly;
        }
    }

    /** One org's conflicts in the request's order, strictly beyond the keyset position if one is given. */
    public static List<StoredConflict> page(Handle handle, UUID orgId, PageRequest request) {
        return page(handle, orgId, request, FEW_MATCHES);
    }

    /**
     * {@link #page(Handle, UUID, PageRequest)}, read down the index that holds the fewest conflicts a filter
     * names, so that a first page never reads the org's other conflicts one by one: a search that matches fewer
     * than {@code fewMatches} conflicts through the search key index (schema 18); else a filter by action through
     * the org's conflicts of that action (schema 20), unless a state or status filter holds fewer, whose own
     * index the planner then takes (schema 16); else down the inbox index. Every way gives the same page.
     */
    static List<StoredConflict> page(Handle handle, UUID orgId, PageRequest request, int fewMatches) {
        boolean after = request.positionReceivedAt() != null;
        if (request.filters()) {
            handle.createQuery(PLAN_EACH_PAGE).mapTo(String.class).one();
        }
        // The conflicts a search matches, read once: when fewer than fewMatches, they are the page's candidates by
        // id, so the key indexes are not asked a second time by the page's own statement.
        List<UUID> matched = request.prefix() == null ? List.of() : handle.createQuery(SEARCH_MATCHES)
                .bind("prefix", request.prefix())
                .bind("most", fewMatches)
                .mapTo(UUID.class).list();
        boolean byKey = request.prefix() != null && matched.size() < fewMatches;
        boolean byAction = !byKey && request.action() != null && actionLeads(handle, orgId, request);
        String statement = byKey
                ? (request.newer() ? (after ? PAGE_NEWER_AFTER_BY_KEY : PAGE_NEWER_BY_KEY)
                        : (after ? PAGE_OLDER_AFTER_BY_KEY : PAGE_OLDER_BY_KEY))
                : byAction
                ? (request.newer() ? (after ? PAGE_NEWER_AFTER_BY_ACTION : PAGE_NEWER_BY_ACTION)
                        : (after ? PAGE_OLDER_AFTER_BY_ACTION : PAGE_OLDER_BY_ACTION))
                : (request.newer() ? (after ? PAGE_NEWER_AFTER : PAGE_NEWER)
                        : (after ? PAGE_OLDER_AFTER : PAGE_OLDER));
        var query = handle.createQuery(statement)
                .bind("org", orgId)
                .bind("limit", request.limit())
                .bind("inbox", request.inboxStatus() == null ? null : request.inboxStatus().wireName())
                .bind("unresolvedOnly", request.unresolvedOnly())
                .bind("state", request.synthesisState() == null ? null : request.synthesisState().wireName())
                .bind("action", request.action());
        if (byKey) {
            query.bindArray("matched", UUID.class, matched);
        } else {
            query.bind("prefix", request.prefix());
        }
        if (after) {
            query.bind("positionReceivedAt", Timestamp.from(request.positionReceivedAt()))
                    .bind("positionConflict", request.positionId());
        }
        return query.map(ConflictStore::map).list();
    }

    /**
     * Whether the page is better read through the org's conflicts of the requested action than through the index
     * of its state or status filter. Only a state or status whose conflicts have an index of their own competes
     * (not done, and not open: those the inbox index passes everywhere); then the one holding fewer conflicts
     * leads, the action's counted up to the other's count (the org's kept counts) or {@link #ACTION_COUNTED_UP_TO}.
     */
    private static boolean actionLeads(Handle handle, UUID orgId, PageRequest request) {
        boolean stateIndexed = request.synthesisState() != null && request.synthesisState() != SynthesisState.DONE;
        boolean statusIndexed = request.inboxStatus() != null && request.inboxStatus() != InboxStatus.OPEN;
        if (!stateIndexed && !statusIndexed) {
            return true;
        }
        InboxCounts counts = counts(handle, orgId);
        long fewest = Long.MAX_VALUE;
        if (stateIndexed) {
            fewest = Math.min(fewest, counts.bySynthesisState().get(request.synthesisState()));
        }
        if (statusIndexed) {
            fewest = Math.min(fewest, counts.byInboxStatus().get(request.inboxStatus()));
        }
        long most = Math.min(fewest, ACTION_COUNTED_UP_TO);
        return handle.createQuery(ACTION_MATCHES)
                .bind("org", orgId)
                .bind("action", request.action())
                .bind("most", most)
                .mapTo(Long.class).one() < most;
    }

    /**
     * How many of the org's conflicts are in each synthesis state and each inbox status, from the counts the schema
     * keeps as conflicts change: a few rows read, whatever the org's size.
     */
    public static InboxCounts counts(Handle handle, UUID orgId) {
        Map<SynthesisState, Long> states = zeros(SynthesisState.class);
        Map<InboxStatus, Long> statuses = zeros(InboxStatus.class);
        long[] total = {0};
        handle.createQuery(COUNTS)
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
    public static Optional<StoredConflict> acknowledge(Handle handle, UUID orgId, UUID id, String actorJson) {
        return handle.createQuery(ACKNOWLEDGE)
                .bind("org", orgId)
                .bind("id", id)
                .bind("actor", actorJson)
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
                                                   String note, String actorJson) {
        return handle.createQuery(RESOLVE)
                .bind("org", orgId)
                .bind("id", id)
                .bind("actor", actorJson)
                .bind("resolution", resolution.wireName())
                .bind("note", note)
                .map(ConflictStore::map)
                .findOne();
    }

    /** Who acknowledged and who resolved the org's conflict {@code id}, as JSON; none for a missing conflict. */
    public static Deciders deciders(Handle handle, UUID orgId, UUID id) {
        return handle.createQuery(DECIDERS)
                .bind("org", orgId)
                .bind("id", id)
                .map((rs, ctx) -> new Deciders(rs.getString("acknowledged_by"), rs.getString("resolved_by")))
                .findOne()
                .orElse(Deciders.NONE);
    }

    /** As {@link #deciders}, for a page of conflicts at once: those someone acknowledged or resolved. */
    public static java.util.Map<UUID, Deciders> decidersOf(Handle handle, UUID orgId, List<UUID> ids) {
        java.util.Map<UUID, Deciders> found = new java.util.HashMap<>();
        if (ids.isEmpty()) {
            return found;
        }
        handle.createQuery(DECIDERS_OF)
                .bind("org", orgId)
                .bind("ids", ids.toArray(UUID[]::new))
                .map((rs, ctx) -> java.util.Map.entry(rs.getObject("id", UUID.class),
                        new Deciders(rs.getString("acknowledged_by"), rs.getString("resolved_by"))))
                .forEach(e -> {
                    if (e.getValue().acknowledgedByJson() != null || e.getValue().resolvedByJson() != null) {
                        found.put(e.getKey(), e.getValue());
                    }
                });
        return found;
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
