package io.mergesynthesis.bench;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

/**
 * Builds the big-tenants database with {@code COPY ... FROM STDIN}: every {@link FinishedConflict} of a
 * {@link TenantShape}, its events, provider calls and failed attempts, and a name for every org. Rows are generated
 * as they are sent, a chunk of conflicts per transaction, so memory holds one buffer, not the database. Everything
 * goes through the product's own tables, so their triggers fire as on any insert; each chunk's transaction holds
 * the conflicts before the rows that reference them. The conflicts arrived over this month and the last, so the
 * month-to-date usage has half of the ledger to add up.
 */
final class TenantLoader {

    static final String CONFLICT_COLUMNS = "id, org_id, dedup_key, action, target, rules, winner_policy_id, "
            + "detected_at, received_at, synthesis_state, not_before, attempts, last_failure_reason, failure_marker, "
            + "suggested_merge, merge_check_version, synthesized_at, inbox_status, acknowledged_at, resolved_at, "
            + "resolution, resolution_note, updated_at";
    private static final String EVENT_COLUMNS = "org_id, conflict_id, event_type, occurred_at, details";
    private static final String USAGE_COLUMNS = "id, org_id, conflict_id, attempt, pass, provider, model, input_tokens, "
            + "output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, latency_ms, outcome, "
            + "provider_request_id, created_at";
    private static final String HISTORY_COLUMNS = "org_id, conflict_id, attempt, outcome, reason, detail, "
            + "finished_at, not_before";

    /** Conflicts per transaction: a chunk's rows are visible together, and no transaction grows without bound. */
    private static final int CHUNK = 20_000;
    /** Connections loading at once: one generates rows while the server parses another's. */
    private static final int LOADERS = 2;
    /** Bytes sent to the server per write. */
    private static final int FLUSH_AT = 1 << 18;

    private final BenchDatabase db;
    private final TenantShape shape;

    TenantLoader(BenchDatabase db, TenantShape shape) {
        this.db = db;
        this.shape = shape;
    }

    /** The rows building the database wrote to each table, and how long loading and vacuuming took. */
    record Loaded(long conflicts, long events, long calls, long failedAttempts, double loadSeconds,
                  double vacuumSeconds) {
    }

    /** Loads every row, then vacuums and analyses the database as autovacuum would have, long since. */
    Loaded load() throws Exception {
        long now = System.currentTimeMillis();
        long from = LocalDate.now(ZoneOffset.UTC).withDayOfMonth(1).minusMonths(1)
                .atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
        UUID[] orgs = shape.orgIds();
        long start = System.nanoTime();
        monthPartitionsFrom(from);
        orgNames(orgs);
        int chunks = (shape.conflicts() + CHUNK - 1) / CHUNK;
        ExecutorService loaders = Executors.newFixedThreadPool(LOADERS);
        long[] totals = new long[4];
        try {
            List<Future<long[]>> done = new ArrayList<>();
            for (int t = 0; t < LOADERS; t++) {
                int first = t;
                done.add(loaders.submit(() -> {
                    long[] counted = new long[4];
                    try (Connection c = db.connectAsSweep()) {
                        c.setAutoCommit(false);
                        for (int chunk = first; chunk < chunks; chunk += LOADERS) {
                            long[] rows = chunk(c, chunk, orgs, from, now);
                            c.commit();
                            for (int i = 0; i < 4; i++) {
                                counted[i] += rows[i];
                            }
                            if (chunk % 10 == 0) {
                                progress(String.format(java.util.Locale.ROOT, "loaded %,d of %,d conflicts",
                                        Math.min((long) (chunk + 1) * CHUNK, shape.conflicts()), shape.conflicts()));
                            }
                        }
                    }
                    return counted;
                }));
            }
            for (Future<long[]> f : done) {
                long[] counted = f.get();
                for (int i = 0; i < 4; i++) {
                    totals[i] += counted[i];
                }
            }
        } finally {
            loaders.shutdownNow();
        }
        double loadSeconds = (System.nanoTime() - start) / 1e9;
        long vacuumStart = System.nanoTime();
        progress("vacuuming and analysing");
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("VACUUM (ANALYZE)");
            try {
                s.execute("CHECKPOINT");
            } catch (SQLException e) {
                // Not allowed for every login on a server of one's own; only a source of noise then.
            }
        }
        return new Loaded(totals[0], totals[1], totals[2], totals[3], loadSeconds,
                (System.nanoTime() - vacuumStart) / 1e9);
    }

    /** Conflicts of chunk {@code chunk}, then their events, calls and failed attempts; rows of each table. */
    private long[] chunk(Connection c, int chunk, UUID[] orgs, long from, long now) throws SQLException {
        int first = chunk * CHUNK;
        int end = Math.min(shape.conflicts(), first + CHUNK);
        long span = now - from;
        List<FinishedConflict> conflicts = new ArrayList<>(end - first);
        for (int n = first; n < end; n++) {
            long received = from + (long) ((double) n / shape.conflicts() * span);
            conflicts.add(new FinishedConflict(n, shape, orgs, received, now));
        }
        StringBuilder scratch = new StringBuilder(2_048);
        long[] rows = new long[4];
        rows[0] = copy(c, "policy_conflicts", CONFLICT_COLUMNS, conflicts, (f, line) -> f.conflictRow(line, scratch));
        rows[1] = copy(c, "conflict_events", EVENT_COLUMNS, conflicts, FinishedConflict::eventRows);
        rows[2] = copy(c, "llm_usage_events", USAGE_COLUMNS, conflicts, FinishedConflict::usageRows);
        rows[3] = copy(c, "synthesis_attempt_history", HISTORY_COLUMNS, conflicts, FinishedConflict::historyRows);
        return rows;
    }

    /** Writes rows of one table for each conflict. */
    private interface Rows {
        void write(FinishedConflict conflict, CopyLine line);
    }

    private static long copy(Connection c, String table, String columns, List<FinishedConflict> conflicts, Rows rows)
            throws SQLException {
        CopyIn in = c.unwrap(PGConnection.class).getCopyAPI()
                .copyIn("COPY " + table + " (" + columns + ") FROM STDIN");
        try {
            StringBuilder text = new StringBuilder(FLUSH_AT + 16_384);
            CopyLine line = new CopyLine(text);
            for (FinishedConflict conflict : conflicts) {
                rows.write(conflict, line);
                if (text.length() >= FLUSH_AT) {
                    send(in, text);
                }
            }
            send(in, text);
            return in.endCopy();
        } finally {
            if (in.isActive()) {
                in.cancelCopy();
            }
        }
    }

    private static void send(CopyIn in, StringBuilder text) throws SQLException {
        byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
        in.writeToCopy(bytes, 0, bytes.length);
        text.setLength(0);
    }

    /**
     * The monthly partitions of the months the load writes in, as a database that was running then would have
     * them (each replica makes them ahead). Without them last month's rows would land in each table's DEFAULT
     * partition, and the replica's partition upkeep would move them out at its start, holding the workers' writes
     * while it does.
     */
    private void monthPartitionsFrom(long from) throws SQLException {
        try (Connection c = db.connect(); PreparedStatement s = c.prepareStatement(
                "SELECT create_month_partition(t.parent, CAST(? AS date)) FROM monthly_partitioned_tables() t")) {
            s.setObject(1, Instant.ofEpochMilli(from).atZone(ZoneOffset.UTC).toLocalDate());
            s.executeQuery().close();
        }
    }

    /** A name for every org, as the platform gives them; the operator's page shows and searches them. */
    private void orgNames(UUID[] orgs) throws SQLException {
        try (Connection c = db.connectAsSweep()) {
            CopyIn in = c.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY org_names (org_id, name) FROM STDIN");
            try {
                StringBuilder text = new StringBuilder();
                CopyLine line = new CopyLine(text);
                for (int n = 0; n < orgs.length; n++) {
                    line.uuid(orgs[n]).text(n == TenantShape.BIG_ORG ? "Big Tenant" : orgName(n));
                    line.end();
                    if (text.length() >= FLUSH_AT) {
                        send(in, text);
                    }
                }
                send(in, text);
                in.endCopy();
            } finally {
                if (in.isActive()) {
                    in.cancelCopy();
                }
            }
        }
    }

    private static final String[] NAMES = {"Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark", "Wayne",
            "Wonka", "Tyrell", "Cyberdyne", "Soylent", "Aperture", "Vandelay", "Oscorp", "Gringotts", "Pied Piper"};

    private static String orgName(int n) {
        return NAMES[n % NAMES.length] + " " + String.format(java.util.Locale.ROOT, "%05d", n);
    }

    private static void progress(String message) {
        System.err.println("[bench] big tenants: " + message);
    }
}
