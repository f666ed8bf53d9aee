package io.mergesynthesis.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import io.mergesynthesis.harness.Replica;

/**
 * The big-tenants step: builds a database of finished conflicts shaped like a platform with one very large org and
 * a fleet of small ones ({@link TenantShape}, loaded by {@link TenantLoader}), starts one replica on it, and times
 * what people and clients read there, for the big org, for fleet orgs and across every org: the API's first page
 * and each of its filters, the web inbox (plain, filtered, oldest first), usage, the operator's page, the event
 * export's rate, and how soon a newly reported conflict has its merge. Each p95 is held to its target, scaled for
 * databases larger than the one the targets are stated for.
 */
final class BigTenants {

    /** How long the first fold of a loaded database may take: minutes at ten million conflicts. */
    private static final Duration FOLD_WAIT = Duration.ofMinutes(30);

    /** Fleet orgs whose reads take turns in a fleet org's figures. */
    private static final int FLEET_SAMPLE_ORGS = 10;

    /** Starts a replica of the product with these settings. */
    interface ReplicaStarter {
        Replica start(String name, Map<String, String> overrides) throws Replica.RefusedToStart;
    }

    private final Options options;
    private final BenchDatabase db;
    private final Seeder seeder;
    private final Fixture fixture;
    private final Results results;
    private final ReplicaStarter replicas;
    private final List<String> samplesTaken = new ArrayList<>();

    BigTenants(Options options, BenchDatabase db, Seeder seeder, Fixture fixture, Results results,
               ReplicaStarter replicas) {
        this.options = options;
        this.db = db;
        this.seeder = seeder;
        this.fixture = fixture;
        this.results = results;
        this.replicas = replicas;
    }

    void run() throws Exception {
        TenantShape shape = TenantShape.of(options.tenantRows(), options.quick());
        double allowance = TenantRead.allowance(shape.conflicts());
        for (Metric m : Metric.tenants()) {
            if (m.tenantRead != null) {
                results.target(m, Metric.tenantTarget(m.tenantRead, m.percentile, allowance));
            }
        }
        if (options.tenantReuse()) {
            reuse(shape);
        } else {
            db.reset();
            progress("building " + shape.describe() + " with COPY");
            TenantLoader.Loaded loaded = new TenantLoader(db, shape).load();
            results.put(Metric.TENANTS_LOAD, loaded.loadSeconds());
            results.note("big_tenants_database", String.format(Locale.ROOT, "%s; %,d conflicts, %,d events, %,d "
                            + "provider calls, %,d failed attempts loaded in %.1f s, then VACUUM ANALYZE in %.1f s",
                    shape.describe(), loaded.conflicts(), loaded.events(), loaded.calls(), loaded.failedAttempts(),
                    loaded.loadSeconds(), loaded.vacuumSeconds()));
            progress(String.format(Locale.ROOT, "loaded in %.1f s, vacuumed in %.1f s", loaded.loadSeconds(),
                    loaded.vacuumSeconds()));
        }

        UUID big = Seeder.orgId(TenantShape.BIG_ORG);
        List<UUID> fleet = new ArrayList<>();
        int sampled = Math.min(FLEET_SAMPLE_ORGS, shape.fleetOrgs());
        for (int i = 0; i < sampled; i++) {
            fleet.add(Seeder.orgId(1 + (int) ((long) i * shape.fleetOrgs() / sampled)));
        }
        progress("starting replica-tenants");
        try (Replica replica = replicas.start("replica-tenants", Map.of())) {
            awaitFolded();
            measure(replica, big, fleet);
        }
        results.note("big_tenants_samples", "timed reads behind each figure (a read that is slow stops at "
                + budget().toSeconds() + " s with at least " + leastSamples() + "): " + String.join("; ", samplesTaken));
    }

    /**
     * Takes the database an earlier run loaded as it is, so that two builds are timed on the same rows: only if it
     * holds the shape's conflicts (and the few an earlier run's pickups added), since figures on a database of
     * another size would be quoted as this one's.
     */
    private void reuse(TenantShape shape) throws Exception {
        long conflicts;
        try (Connection c = db.connectAsSweep(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM policy_conflicts")) {
            rs.next();
            conflicts = rs.getLong(1);
        }
        long pickedUp = conflicts - shape.conflicts();
        if (pickedUp < 0 || pickedUp > shape.conflicts() / 100) {
            throw new IllegalStateException("--scale-reuse: the database holds " + conflicts + " conflicts, not the "
                    + shape.conflicts() + " of " + shape.describe() + "; run --scale-tenants to load it");
        }
        results.note("big_tenants_database", String.format(Locale.ROOT, "%s; reused as an earlier run loaded it "
                + "(%,d conflicts, with those its pickups added), not loaded again", shape.describe(), conflicts));
        progress(String.format(Locale.ROOT, "reusing the loaded database: %,d conflicts", conflicts));
    }

    /**
     * Waits for the replica's first fold of the kept counts and usage. A load compresses months of ingest into
     * minutes, and leaves the count rows its statements wrote for a fold that a replica, running all along, would
     * long since have made; reads are timed once that fold is done, as they would be on the database that took
     * months to fill.
     */
    private void awaitFolded() throws Exception {
        long start = System.nanoTime();
        long deadline = start + FOLD_WAIT.toNanos();
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            while (true) {
                ResultSet rs = s.executeQuery("""
                        SELECT (SELECT count(*) FROM (SELECT org_id FROM org_conflict_counts GROUP BY org_id
                                 HAVING bool_or(out_state IS NOT NULL)
                                     OR count(*) > count(DISTINCT (into_state, into_status))) AS c)
                             + (SELECT count(*) FROM (SELECT org_id FROM org_usage_by_month GROUP BY org_id, month
                                 HAVING count(*) > count(DISTINCT (provider, model))) AS u)""");
                rs.next();
                long unfolded = rs.getLong(1);
                if (unfolded == 0) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(unfolded + " orgs still had rows to fold after " + FOLD_WAIT);
                }
                Thread.sleep(1_000);
            }
            // The fold deleted every row the load added, at once: autovacuum, which on a live database clears a
            // fold's few thousand dead rows long before the next thousands, is done here as the load's was.
            s.execute("VACUUM (ANALYZE) org_conflict_counts, org_usage_by_month");
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        results.note("big_tenants_first_fold", String.format(Locale.ROOT, "the replica's first fold of the loaded "
                + "counts and usage, and a VACUUM of them, were done %.1f s after it started; reads were timed after",
                seconds));
        progress(String.format(Locale.ROOT, "counts and usage folded %.1f s after the replica started", seconds));
    }

    private void measure(Replica replica, UUID big, List<UUID> fleet) throws Exception {
        WebSignIn web = new WebSignIn();
        String bigToken = seeder.token("org_admin", big);
        List<TimedGets.Caller> bigApi = List.of(TimedGets.Caller.bearer(bigToken));
        List<TimedGets.Caller> bigWeb = List.of(TimedGets.Caller.session(web.session(replica, bigToken)));
        List<TimedGets.Caller> fleetApi = new ArrayList<>();
        List<TimedGets.Caller> fleetWeb = new ArrayList<>();
        for (UUID org : fleet) {
            String token = seeder.token("org_admin", org);
            fleetApi.add(TimedGets.Caller.bearer(token));
            fleetWeb.add(TimedGets.Caller.session(web.session(replica, token)));
        }
        String platform = seeder.token("platform", null);
        List<TimedGets.Caller> platformApi = List.of(TimedGets.Caller.bearer(platform));
        List<TimedGets.Caller> platformWeb = List.of(TimedGets.Caller.session(web.session(replica, platform)));

        TimedGets gets = new TimedGets(options.quick() ? 3 : 20, options.tenantSamples(), leastSamples(), budget());
        // The JIT compiles the request paths first, on reads of small orgs that take no time, so that the first
        // figure timed is not the one that pays for it.
        progress("warming the replica up");
        for (String path : List.of("/v1/conflicts", "/v1/conflicts?inbox_status=open", "/v1/usage")) {
            gets.warmUp(replica, path, fleetApi, options.quick() ? 20 : 300);
        }
        gets.warmUp(replica, "/", fleetWeb, options.quick() ? 20 : 300);
        for (Tenant tenant : List.of(Tenant.BIG_ORG, Tenant.FLEET_ORG)) {
            List<TimedGets.Caller> api = tenant == Tenant.BIG_ORG ? bigApi : fleetApi;
            List<TimedGets.Caller> pages = tenant == Tenant.BIG_ORG ? bigWeb : fleetWeb;
            time(gets, replica, tenant, TenantRead.API_FIRST_PAGE, "/v1/conflicts", api);
            time(gets, replica, tenant, TenantRead.API_INBOX_STATUS, "/v1/conflicts?inbox_status=acknowledged", api);
            time(gets, replica, tenant, TenantRead.API_SYNTHESIS_STATE,
                    "/v1/conflicts?synthesis_state=max_attempts_exceeded", api);
            time(gets, replica, tenant, TenantRead.API_ACTION, "/v1/conflicts?action=knowledge_query", api);
            time(gets, replica, tenant, TenantRead.API_TARGET_PREFIX,
                    "/v1/conflicts?q=" + FinishedConflict.COMMON_PREFIX, api);
            time(gets, replica, tenant, TenantRead.API_POLICY_PREFIX,
                    "/v1/conflicts?q=" + FinishedConflict.RARE_PREFIX, api);
            time(gets, replica, tenant, TenantRead.API_SEARCH_NEARLY_ALL,
                    "/v1/conflicts?q=" + FinishedConflict.NEARLY_ALL_SEARCH, api);
            time(gets, replica, tenant, TenantRead.API_SEARCH_SHARED_TRIGRAMS,
                    "/v1/conflicts?q=" + FinishedConflict.SHARED_TRIGRAMS_SEARCH, api);
            time(gets, replica, tenant, TenantRead.WEB_INBOX, "/", pages);
            time(gets, replica, tenant, TenantRead.WEB_INBOX_FILTERED, "/?inbox_status=open&action=data_export", pages);
            time(gets, replica, tenant, TenantRead.WEB_INBOX_OLDEST, "/?sort=oldest", pages);
            time(gets, replica, tenant, TenantRead.USAGE, "/v1/usage", api);
        }
        time(gets, replica, Tenant.EVERY_ORG, TenantRead.USAGE, "/v1/usage", platformApi);
        time(gets, replica, Tenant.EVERY_ORG, TenantRead.OPERATOR, "/operator", platformWeb);

        export(replica, platform, Tenant.BIG_ORG, big);
        export(replica, platform, Tenant.EVERY_ORG, null);

        IngestPickup pickup = new IngestPickup(db, fixture);
        int pickups = Math.max(leastSamples(), options.tenantSamples() / 2);
        for (Tenant tenant : List.of(Tenant.BIG_ORG, Tenant.FLEET_ORG)) {
            List<UUID> orgs = tenant == Tenant.BIG_ORG ? List.of(big) : fleet;
            List<String> ingest = new ArrayList<>();
            for (UUID org : orgs) {
                ingest.add(seeder.token("ingest", org));
            }
            progress(tenant.label + ": " + pickups + " conflicts reported one at a time, each to its merge");
            put(tenant, TenantRead.PICKUP, pickup.measure(replica, orgs, ingest, "tenants-" + tenant.key, pickups));
        }
    }

    private void time(TimedGets gets, Replica replica, Tenant tenant, TenantRead read, String path,
                      List<TimedGets.Caller> callers) throws Exception {
        progress(tenant.label + ": " + read.label);
        put(tenant, read, gets.time(replica, path, callers).millis());
    }

    private void put(Tenant tenant, TenantRead read, Percentiles millis) {
        results.put(Metric.tenant(tenant, read, 50), millis.at(50));
        results.put(Metric.tenant(tenant, read, 95), millis.at(95));
        samplesTaken.add(tenant.key + " " + read.key + " " + millis.count());
        progress(String.format(Locale.ROOT, "  p50 %.1f ms, p95 %.1f ms over %d", millis.at(50), millis.at(95),
                millis.count()));
    }

    /** The stream from its start, up to {@link Options#tenantExportEvents} events: the rate a SIEM catching up sees. */
    private void export(Replica replica, String platform, Tenant tenant, UUID org) throws Exception {
        progress(tenant.label + ": reading the event export");
        EventExportRate.Exported exported = new EventExportRate().read(replica, platform, org, Long.MAX_VALUE / 4,
                options.tenantExportEvents());
        results.put(Metric.tenant(tenant, TenantRead.EXPORT, 0), exported.perSecond());
        samplesTaken.add(tenant.key + " export " + exported.events() + " events in " + exported.pages() + " pages");
        progress(String.format(Locale.ROOT, "  %,d events in %.1f s", exported.events(), exported.seconds()));
    }

    private int leastSamples() {
        return options.quick() ? 5 : 30;
    }

    private Duration budget() {
        return Duration.ofSeconds(options.quick() ? 10 : 60);
    }

    private static void progress(String message) {
        System.err.println("[bench] big tenants: " + message);
    }
}
