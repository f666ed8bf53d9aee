package io.mergesynthesis.drills;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import io.mergesynthesis.harness.Product;
import io.mergesynthesis.harness.Replica;
import io.mergesynthesis.testsupport.Wait;

/**
 * Replicas behind a real PgBouncer in transaction mode, with fewer server connections than the replicas' pools
 * hold, so that every transaction may land on a server connection another replica, or another org, used last.
 * Each replica runs its statements through PgBouncer ({@code DATABASE_POOLER=transaction}) and listens for new
 * conflicts on a connection straight to PostgreSQL ({@code DATABASE_LISTEN_URL}).
 *
 * <p>Checked: new conflicts are picked up within a round trip of their commit (the pickup figures), a feed of
 * conflicts from several orgs is merged exactly once each, and while the replicas are busy no org's inbox or event
 * stream ever shows another org's rows, nor does a pooled server connection keep a role or an org scope after
 * the transaction that set it.
 *
 * <p>Skipped, saying so, when pgbouncer is not installed outside CI; in CI ({@code CI=true}) its absence fails
 * the drill, since {@code .ci/run} installs it.
 */
@Tag("drill")
class PgBouncerDrill {

    private static final String NAME = "pgbouncer";
    private static final int REPLICAS = 2;
    private static final int WORKERS = 4;
    /** Fewer than the replicas' pools together hold: server connections are shared and reused. */
    private static final int SERVER_CONNECTIONS = 8;
    private static final int PICKUP_PROBES = 20;
    private static final int CONFLICTS = 1_000;
    private static final int ORGS = 4;
    private static final int BATCH = 50;
    private static final Duration FEED_PACE = Duration.ofMillis(100);
    private static final Duration LONG_WAIT = Duration.ofSeconds(90);
    /**
     * The median pickup through NOTIFY: well under the poll interval (5 s), over which pickups would spread if
     * the replicas were not woken; bounded generously for shared, noisy cores.
     */
    private static final Duration PICKUP_MEDIAN_BOUND = Duration.ofSeconds(1);
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void replicasWorkThroughPgBouncerInTransactionMode() throws Exception {
        boolean installed = PgBouncer.binary().isPresent();
        if (!installed && "true".equals(System.getenv("CI"))) {
            throw new AssertionError("pgbouncer is not installed, and in CI this drill must run: .ci/run "
                    + "installs it (apt-get install pgbouncer)");
        }
        Assumptions.assumeTrue(installed, "pgbouncer is not installed (apt-get install pgbouncer); the PgBouncer "
                + "drill is skipped");
        DrillReport report = new DrillReport(NAME);
        Path dir = Product.workDirectory("drills").resolve(NAME);
        try (DrillDatabase database = DrillDatabase.start(NAME);
             PgBouncer bouncer = PgBouncer.start(database, SERVER_CONNECTIONS, dir)) {
            Map<String, String> settings = new LinkedHashMap<>();
            settings.put("synthesis.workers", Integer.toString(WORKERS));
            settings.put("synthesis.faults.latency", "20ms");
            Map<String, String> environment = Map.of(
                    "DATABASE_URL", bouncer.url(),
                    "DATABASE_PASSWORD", bouncer.password(),
                    "DATABASE_POOLER", "transaction",
                    "DATABASE_LISTEN_URL", database.url());
            List<Replica> replicas = new ArrayList<>();
            for (int i = 1; i <= REPLICAS; i++) {
                replicas.add(DrillReplicas.of("r" + i, database, dir, settings, environment));
            }
            report.line(REPLICAS + " replicas x " + WORKERS + " workers through PgBouncer (transaction mode, "
                    + SERVER_CONNECTIONS + " server connections), LISTEN straight to PostgreSQL");
            try {
                replicas.forEach(Replica::launch);
                for (Replica replica : replicas) {
                    replica.awaitHealthy(LONG_WAIT);
                    assertThat(replica.logSinceStart()).as(replica.name() + "'s pool")
                            .contains("woken by NOTIFY");
                }

                List<Duration> pickups = pickups(database, replicas);
                report.figure("pickup, ingest commit to merge stored, " + PICKUP_PROBES + " single conflicts",
                        "p50 " + millis(percentile(pickups, 50)) + ", p90 " + millis(percentile(pickups, 90))
                                + ", max " + millis(percentile(pickups, 100)));

                ConflictFeed feed = new ConflictFeed(database, replicas, ORGS, "jira.create_issue")
                        .start(CONFLICTS, BATCH, FEED_PACE);
                IsolationWatch watch = new IsolationWatch(database, replicas, feed.orgs());
                watch.start();
                long sent = feed.awaitEnd(LONG_WAIT);
                Optional<Duration> drained = MergeAudit.awaitDrained(database, LONG_WAIT);
                watch.stop();
                report.figure("conflicts fed", sent + " from " + ORGS + " orgs (" + feed.resent()
                        + " batches sent again)");
                report.figure("drained after the feed in", drained.map(PgBouncerDrill::millis).orElse("NOT"));
                report.figure("inbox and event reads during the feed", watch.reads.get() + ", of which "
                        + watch.rowsSeen.get() + " rows checked for their org");
                report.figure("reads that showed another org's rows, or failed", watch.violations.size());
                watch.violations.stream().limit(5).forEach(violation -> report.line("  " + violation));
                long serverConnections = database.count("SELECT count(*) FROM pg_stat_activity"
                        + " WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()"
                        + " AND application_name <> 'merge-synthesis-listener'");
                report.figure("server connections PostgreSQL holds through PgBouncer", serverConnections
                        + " (at most " + SERVER_CONNECTIONS + ") for " + REPLICAS + " replicas");
                List<String> leftovers = sessionStateLeft(bouncer);
                report.figure("pooled server connections left with a role or org scope", leftovers.size());
                leftovers.stream().limit(5).forEach(left -> report.line("  " + left));
                MergeAudit.Tally tally = MergeAudit.tally(database);
                report.figure("conflicts", tally);
                List<String> preparedErrors = new ArrayList<>();
                for (Replica replica : replicas) {
                    String log = replica.logSinceStart();
                    if (log.contains("prepared statement")) {
                        preparedErrors.add(replica.name());
                    }
                }
                report.figure("replicas that met a prepared-statement error", preparedErrors);

                assertThat(pickups).as("pickups").hasSize(PICKUP_PROBES);
                assertThat(percentile(pickups, 50)).as("median pickup").isLessThan(PICKUP_MEDIAN_BOUND);
                assertThat(drained).as("drained within " + LONG_WAIT.toSeconds() + " s").isPresent();
                long expected = sent + PICKUP_PROBES;
                assertThat(tally.conflicts()).as("conflicts stored").isEqualTo(expected);
                assertThat(tally.merged()).as("conflicts merged").isEqualTo(expected);
                assertThat(tally.mergeEvents()).as("merge events").isEqualTo(expected);
                assertThat(tally.repeatedMergeEvents()).as("conflicts merged twice").isZero();
                assertThat(tally.mergedWithoutEvent()).as("merges without their event").isZero();
                assertThat(tally.leased()).as("leases left").isZero();
                assertThat(watch.reads.get()).as("reads while busy").isGreaterThan(20);
                assertThat(watch.rowsSeen.get()).as("rows the reads returned").isPositive();
                assertThat(watch.violations).as("reads that showed another org's rows, or failed").isEmpty();
                assertThat(serverConnections).as("server connections through PgBouncer")
                        .isPositive().isLessThanOrEqualTo(SERVER_CONNECTIONS);
                assertThat(leftovers).as("server connections with state left behind").isEmpty();
                assertThat(preparedErrors).as("prepared-statement errors").isEmpty();
            } finally {
                replicas.forEach(Replica::stop);
                report.write();
            }
        }
    }

    /**
     * Sends single conflicts to the idle replicas one at a time and returns, for each, the time from its ingest
     * transaction to its stored merge, by the database's clock.
     */
    private static List<Duration> pickups(DrillDatabase database, List<Replica> replicas) throws Exception {
        UUID org = UUID.randomUUID();
        String token = ApiClient.mintToken(database, "ingest", org);
        List<Duration> pickups = new ArrayList<>();
        for (int i = 0; i < PICKUP_PROBES; i++) {
            Replica replica = replicas.get(i % replicas.size());
            HttpResponse<String> response = ApiClient.post(replica.api("/v1/conflicts"), token,
                    ApiClient.conflictJson(org, "jira.create_issue", i));
            assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
            int probe = i;
            Wait.until("probe " + i + " merged", Duration.ofSeconds(20), () -> database.count(
                    "SELECT count(*) FROM policy_conflicts WHERE org_id = ? AND synthesis_state = 'done'", org) > probe);
            // Idle again between probes, so that each one is a wake-up rather than a claim already under way. The
            // replicas run in processes of their own and tell nothing of their claim loop going quiet, so the
            // drill lets a moment of idleness pass instead.
            Thread.sleep(150);
        }
        for (String[] row : database.rows("SELECT (extract(epoch FROM synthesized_at - received_at) * 1000000)"
                + "::bigint FROM policy_conflicts WHERE org_id = '" + org + "'")) {
            pickups.add(Duration.ofNanos(Long.parseLong(row[0]) * 1000));
        }
        return pickups;
    }

    /**
     * Connections through PgBouncer, as many at once as it has server connections, so that each lands on its own
     * server connection: none may still be in a tenant role, or scoped to an org, after the service's
     * transactions there ended.
     */
    private static List<String> sessionStateLeft(PgBouncer bouncer) throws SQLException {
        List<Connection> held = new ArrayList<>();
        List<String> left = new ArrayList<>();
        try {
            for (int i = 0; i < SERVER_CONNECTIONS; i++) {
                Connection connection = bouncer.connect();
                connection.setAutoCommit(false);
                held.add(connection);
                try (Statement s = connection.createStatement(); ResultSet r = s.executeQuery(
                        "SELECT pg_backend_pid(), current_user, current_setting('app.org_id', true),"
                                + " current_setting('row_security')")) {
                    r.next();
                    String org = r.getString(3);
                    if (!"postgres".equals(r.getString(2)) || (org != null && !org.isEmpty())
                            || !"on".equals(r.getString(4))) {
                        left.add("backend " + r.getInt(1) + ": role " + r.getString(2) + ", org '" + org
                                + "', row_security " + r.getString(4));
                    }
                }
            }
        } finally {
            for (Connection connection : held) {
                connection.rollback();
                connection.close();
            }
        }
        return left;
    }

    /**
     * Reads each org's inbox and event stream over and over while the replicas are busy, through whichever
     * replica is next, and notes every row that belongs to another org.
     */
    private static final class IsolationWatch {
        private final List<Replica> replicas;
        private final Map<UUID, String> inboxTokens = new LinkedHashMap<>();
        private final Map<UUID, String> siemTokens = new LinkedHashMap<>();
        private final Map<UUID, String> cursors = new HashMap<>();
        private final AtomicLong reads = new AtomicLong();
        private final AtomicLong rowsSeen = new AtomicLong();
        private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        private volatile boolean running = true;
        private Thread thread;

        IsolationWatch(DrillDatabase database, List<Replica> replicas, List<UUID> orgs) {
            this.replicas = replicas;
            for (UUID org : orgs) {
                inboxTokens.put(org, ApiClient.mintToken(database, "org_admin", org));
                siemTokens.put(org, ApiClient.mintToken(database, "siem", org));
            }
        }

        void start() {
            thread = new Thread(this::watch, "isolation-watch");
            thread.setDaemon(true);
            thread.start();
        }

        void stop() throws InterruptedException {
            running = false;
            thread.join(Duration.ofSeconds(30).toMillis());
        }

        private void watch() {
            int turn = 0;
            while (running) {
                for (UUID org : inboxTokens.keySet()) {
                    Replica replica = replicas.get(turn++ % replicas.size());
                    try {
                        checkInbox(replica, org);
                        checkEvents(replica, org);
                    } catch (Exception e) {
                        violations.add("reading as " + org + " from " + replica.name() + " failed: " + e);
                    }
                }
            }
        }

        private void checkInbox(Replica replica, UUID org) throws Exception {
            HttpResponse<String> response = ApiClient.get(replica.api("/v1/conflicts?limit=200"),
                    inboxTokens.get(org));
            reads.incrementAndGet();
            if (response.statusCode() != 200) {
                violations.add("inbox of " + org + " from " + replica.name() + ": " + response.statusCode());
                return;
            }
            for (JsonNode conflict : JSON.readTree(response.body()).path("conflicts")) {
                rowsSeen.incrementAndGet();
                if (!org.toString().equals(conflict.path("org_id").asText())) {
                    violations.add("inbox of " + org + " from " + replica.name() + " showed conflict "
                            + conflict.path("id").asText() + " of " + conflict.path("org_id").asText());
                }
            }
        }

        /** The org's event stream from where its last read ended, so that each read sees the newest events. */
        private void checkEvents(Replica replica, UUID org) throws Exception {
            String after = cursors.containsKey(org)
                    ? "&after=" + URLEncoder.encode(cursors.get(org), StandardCharsets.UTF_8) : "";
            HttpResponse<String> response = ApiClient.get(replica.api("/v1/events?format=ndjson&limit=500"
                    + after), siemTokens.get(org));
            reads.incrementAndGet();
            if (response.statusCode() != 200) {
                violations.add("events of " + org + " from " + replica.name() + ": " + response.statusCode());
                return;
            }
            response.headers().firstValue("Next-Cursor").ifPresent(cursor -> cursors.put(org, cursor));
            for (String line : response.body().split("\n")) {
                JsonNode event = line.isBlank() ? null : JSON.readTree(line);
                if (event == null || event.has("next_cursor")) {
                    continue;
                }
                rowsSeen.incrementAndGet();
                String owner = event.path("organization").path("id").asText();
                if (!org.toString().equals(owner)) {
                    violations.add("events of " + org + " from " + replica.name() + " showed one of '" + owner
                            + "'");
                }
            }
        }
    }

    private static Duration percentile(List<Duration> values, int percent) {
        List<Duration> sorted = values.stream().sorted().toList();
        int index = Math.max(0, (int) Math.ceil(percent / 100.0 * sorted.size()) - 1);
        return sorted.get(index);
    }

    private static String millis(Duration duration) {
        return duration.toMillis() + " ms";
    }
}
