package io.mergesynthesis.drills;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.drills.HostileLedger.Findings;
import io.mergesynthesis.drills.HostileLedger.Outcome;
import io.mergesynthesis.drills.HostileProbes.Org;
import io.mergesynthesis.drills.HostileProbes.Targets;
import io.mergesynthesis.drills.Probe.Header;
import io.mergesynthesis.harness.Product;
import io.mergesynthesis.harness.Replica;
import io.mergesynthesis.testsupport.Wait;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Hostile input against two replicas: over ten thousand generated requests (seeded, so a failure can be
 * replayed) at every public endpoint, as every role of two orgs and as no one, with malformed, oversized,
 * mis-encoded, mis-framed and cross-org requests mixed with valid ones.
 *
 * <p>Passes when no request got a 5xx or no answer, no answer to one org's caller showed another org's data,
 * every 4xx said in JSON what was wrong, no one got a 2xx they may not have, the database holds exactly what
 * the accepted requests' answers said was stored (and nothing of the rejected ones), the token table is
 * untouched, both replicas are healthy and neither logged an ERROR.
 *
 * <p>Settings: {@code -Ddrill.hostile.seed=N} replays a run, {@code drill.hostile.requests} (default 12000) and
 * {@code drill.hostile.threads} (default 8) size it, {@code drill.hostile.trace=7,42} reports those requests and
 * their answers in full, {@code drill.hostile.kinds=resolve,raw/} sends only the requests whose kind starts with
 * one of those prefixes (request {@code n} stays the same request, so a seed and an index still replay one).
 */
@Tag("drill")
class HostileInputDrill {

    private static final String NAME = "hostile-input";
    /** config.yml's ingest.maxBodySize. */
    private static final long BODY_LIMIT = 2L * 1024 * 1024;
    private static final int SEEDED_PER_ORG = 30;
    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();

    private final HostileLedger ledger = new HostileLedger();

    @Test
    void hostileRequestsAreRefusedClearlyAndStoreNothing() throws Exception {
        long seed = Long.getLong("drill.hostile.seed", new SecureRandom().nextLong());
        int total = Integer.getInteger("drill.hostile.requests", 12_000);
        // Many answers wait on the server's timers rather than its CPU (a lingering close, a body drained after an
        // early answer): with four senders the replicas sat idle through them, eight keep them busy.
        int threads = Integer.getInteger("drill.hostile.threads", 8);
        DrillReport report = new DrillReport(NAME);
        report.figure("seed", seed + " (replay with -Ddrill.hostile.seed=" + seed + ")");
        List<String> problems = new ArrayList<>();
        try (DrillDatabase database = DrillDatabase.start(NAME)) {
            Path dir = Product.workDirectory("drills").resolve(NAME);
            Map<String, String> settings = Map.of("synthesis.workers", "2");
            Replica r1 = DrillReplicas.of("r1", database, dir, settings).start();
            // The second replica starts while the first is seeded; both get half of the fuzz.
            Replica r2 = DrillReplicas.of("r2", database, dir, settings).launch();
            List<Replica> replicas = List.of(r1, r2);
            try {
                Targets targets = seed(database, r1, report);
                r2.awaitHealthy(Duration.ofSeconds(120));
                String tokensBefore = tokenTable(database);
                long tokenCount = database.count("SELECT count(*) FROM api_tokens");

                HostileProbes probes = new HostileProbes(targets, seed, r1.api("/").getPort(), BODY_LIMIT);
                long started = System.nanoTime();
                fuzz(probes, replicas, total, threads, report);
                double seconds = (System.nanoTime() - started) / 1e9;
                report.figure("fuzz", String.format("%d requests in %.1f s (%.0f/s), %d threads, %d sent raw over a socket",
                        ledger.sent(), seconds, ledger.sent() / seconds, threads, ledger.sentRaw()));
                reportCounts(report);
                report.figure("slowest answer", ledger.slowest());
                report.figure("generators whose answers took longest in all", ledger.slowestKinds(12));

                for (Replica replica : replicas) {
                    int health = replica.healthStatus();
                    report.figure(replica.name() + " /healthcheck after the fuzz", health);
                    if (health != 200) {
                        problems.add(replica.name() + " is not healthy after the fuzz: " + health);
                    }
                }
                awaitSynthesisSettled(database, report);
                checkRows(database, report, problems);
                if (database.count("SELECT count(*) FROM api_tokens") != tokenCount
                        || !tokenTable(database).equals(tokensBefore)) {
                    problems.add("api_tokens changed during the fuzz");
                }
                report.figure("api_tokens", tokenCount + " rows before, "
                        + database.count("SELECT count(*) FROM api_tokens") + " after, "
                        + (tokenTable(database).equals(tokensBefore) ? "unchanged" : "CHANGED"));
                for (Replica replica : replicas) {
                    checkLog(replica, report, problems);
                }
                for (Findings findings : ledger.findings()) {
                    report.figure(findings.name(), findings.count());
                    findings.examples().forEach(e -> report.line("    " + e));
                    if (findings.count() > 0) {
                        problems.add(findings.count() + " x " + findings.name());
                    }
                }
                report.figure("non-requests (blank lines, TLS, HTTP/2 preface) the server hung up on",
                        ledger.hungUpOnGarbage());
                report.figure("505 to request lines in another HTTP version than 1.x (the status HTTP prescribes)",
                        ledger.versionsRefused());
                report.figure("server stopped reading before the request was fully sent (informational)",
                        ledger.writesCutShort.count());
                ledger.writesCutShort.examples().forEach(e -> report.line("    " + e));
            } finally {
                replicas.forEach(Replica::stop);
                report.figure("problems", problems.isEmpty() ? "none" : String.join("; ", problems));
                report.write();
            }
        }
        assertThat(problems).as("hostile-input drill, seed " + seed + "; see drills/target/drills/" + NAME
                + "/report.txt").isEmpty();
    }

    // ---- before the fuzz ----

    /** Two orgs with tokens of every role (and revoked ones), conflicts in several inbox states, and cursors. */
    private Targets seed(DrillDatabase database, Replica replica, DrillReport report) throws Exception {
        Org a = seedOrg("A", database, replica);
        Org b = seedOrg("B", database, replica);
        String platform = ApiClient.mintToken(database, "platform", null);
        String revokedPlatform = ApiClient.mintToken(database, "platform", null);
        ApiClient.revokeToken(database, revokedPlatform);
        Wait.holdsWithin("both orgs' seeded conflicts merged", Duration.ofSeconds(120), () -> database.count(
                "SELECT count(*) FROM policy_conflicts WHERE synthesis_state = 'done'") >= 2L * SEEDED_PER_ORG);
        a = withInboxHistory(a, replica);
        b = withInboxHistory(b, replica);
        String platformCursor = eventCursor(replica, platform, null);
        // Revoked tokens stand for every dead token: an expired one is refused by the same look-up.
        report.figure("seeded", "orgs A " + a.id() + " and B " + b.id() + ", " + SEEDED_PER_ORG
                + " conflicts each, tokens of every role and a revoked one of each, "
                + database.count("SELECT count(*) FROM conflict_events") + " events");
        return new Targets(a, b, platform, revokedPlatform, platformCursor);
    }

    private Org seedOrg(String name, DrillDatabase database, Replica replica) throws Exception {
        UUID org = UUID.randomUUID();
        String prefix = "k" + name + Long.toString(new SecureRandom().nextLong() & Long.MAX_VALUE, 36).substring(0, 7);
        ledger.watch(org, prefix);
        String admin = ApiClient.mintToken(database, "org_admin", org);
        String ingest = ApiClient.mintToken(database, "ingest", org);
        String siem = ApiClient.mintToken(database, "siem", org);
        String[] revoked = new String[3];
        String[] roles = {"org_admin", "ingest", "siem"};
        for (int i = 0; i < 3; i++) {
            revoked[i] = ApiClient.mintToken(database, roles[i], org);
            ApiClient.revokeToken(database, revoked[i]);
        }
        ObjectNode batch = JSON.createObjectNode();
        ArrayNode items = batch.putArray("conflicts");
        for (int i = 0; i < SEEDED_PER_ORG; i++) {
            items.add(HostileProbes.seedConflict(org, prefix + "-seed-" + i, i));
        }
        HttpResponse<String> answer = ApiClient.post(replica.api("/v1/conflicts"), ingest, JSON.writeValueAsString(batch));
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        ledger.noteIngestAnswer(answer.body());
        List<UUID> ids = new ArrayList<>();
        JSON.readTree(answer.body()).get("results").forEach(r -> ids.add(UUID.fromString(r.get("id").asText())));
        return new Org(name, org, prefix, admin, ingest, siem, revoked[0], revoked[1], revoked[2], List.copyOf(ids),
                null, eventCursor(replica, siem, org));
    }

    /** Some seeded conflicts acknowledged, some resolved, and a cursor into the org's inbox. */
    private Org withInboxHistory(Org org, Replica replica) throws Exception {
        for (int i = 0; i < 9; i++) {
            UUID id = org.conflicts().get(i);
            String path = "/v1/conflicts/" + id + (i < 5 ? "/acknowledge" : "/resolve");
            String body = i < 5 ? "" : i < 8 ? "{\"resolution\": \"manual\", \"note\": \"seeded\"}"
                    : "{\"resolution\": \"accepted_suggestion\"}";
            HttpResponse<String> answer = ApiClient.post(replica.api(path), org.admin(), body);
            assertThat(answer.statusCode()).as(path + " " + answer.body()).isEqualTo(200);
            ledger.noteInboxAnswer(path, body, answer.body());
        }
        HttpResponse<String> page = ApiClient.get(replica.api("/v1/conflicts?limit=5"), org.admin());
        assertThat(page.statusCode()).as(page.body()).isEqualTo(200);
        String cursor = JSON.readTree(page.body()).get("next_cursor").asText();
        return new Org(org.name(), org.id(), org.keyPrefix(), org.admin(), org.ingest(), org.siem(), org.revokedAdmin(),
                org.revokedIngest(), org.revokedSiem(), org.conflicts(), cursor, org.eventCursor());
    }

    private static String eventCursor(Replica replica, String token, UUID org) throws Exception {
        HttpResponse<String> page = ApiClient.get(replica.api("/v1/events?limit=10"
                + (org == null ? "" : "&org_id=" + org)), token);
        assertThat(page.statusCode()).as(page.body()).isEqualTo(200);
        return page.headers().firstValue("Next-Cursor").orElseThrow();
    }

    /** Everything about every token, as one text, to see whether the fuzz changed any of it. */
    private static String tokenTable(DrillDatabase database) {
        return database.text("SELECT md5(coalesce(string_agg(id::text || role || coalesce(org_id::text, '') || "
                + "coalesce(revoked_at::text, '') || encode(token_sha256, 'hex'), ',' ORDER BY id), '')) FROM api_tokens");
    }

    // ---- the fuzz ----

    private void fuzz(HostileProbes probes, List<Replica> replicas, int total, int threads, DrillReport report)
            throws Exception {
        Set<Integer> traced = new HashSet<>();
        for (String n : System.getProperty("drill.hostile.trace", "").split(",")) {
            if (!n.isBlank()) {
                traced.add(Integer.parseInt(n.trim()));
            }
        }
        List<String> kinds = new ArrayList<>();
        for (String kind : System.getProperty("drill.hostile.kinds", "").split(",")) {
            if (!kind.isBlank()) {
                kinds.add(kind.trim());
            }
        }
        if (!kinds.isEmpty()) {
            report.figure("kinds sent", "only those starting with " + kinds);
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        AtomicInteger next = new AtomicInteger();
        AtomicInteger taken = new AtomicInteger();
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(pool.submit(() -> {
                for (int i = next.getAndIncrement(); taken.get() < total; i = next.getAndIncrement()) {
                    Probe probe = probes.build(i);
                    if (!kinds.isEmpty() && kinds.stream().noneMatch(probe.kind()::startsWith)) {
                        continue;
                    }
                    int n = taken.incrementAndGet();
                    if (n > total) {
                        break;
                    }
                    Outcome outcome = send(probe, replicas.get(i % replicas.size()));
                    ledger.record(probe, outcome);
                    if (traced.contains(i)) {
                        report.line("trace " + probe.describe() + "\n      -> " + (outcome.failure() != null ? outcome.failure()
                                : outcome.status() + " " + outcome.contentType() + " " + HostileLedger.cut(
                                new String(outcome.body(), StandardCharsets.UTF_8), 2000)));
                    }
                    if (n % 2000 == 0) {
                        report.line("sent " + n + " of " + total + ", 5xx so far: " + ledger.serverErrors.count()
                                + ", no answer so far: " + ledger.noAnswer.count());
                    }
                }
                return null;
            }));
        }
        try {
            for (Future<?> worker : workers) {
                worker.get(30, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private Outcome send(Probe probe, Replica replica) {
        int port = replica.api("/").getPort();
        long started = System.nanoTime();
        if (probe.raw() != null) {
            return sendRaw(probe, probe.raw(), port, started);
        }
        HttpRequest request;
        try {
            request = request(probe, replica);
        } catch (IllegalArgumentException e) {
            // java.net.http refuses some targets and header values; the same request goes by hand instead.
            return sendRaw(probe, rawForm(probe, port), port, started);
        }
        try {
            HttpResponse<byte[]> response = HTTP.send(request, HttpResponse.BodyHandlers.ofByteArray());
            return new Outcome(response.statusCode(), response.headers().firstValue("Content-Type").orElse(null),
                    response.headers().firstValue("Next-Cursor").orElse(null), response.body(), null, false,
                    millisSince(started));
        } catch (IOException e) {
            return Outcome.failed(clientFailure(e), false, millisSince(started));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private Outcome sendRaw(Probe probe, byte[] request, int port, long started) {
        try {
            RawHttp.Answer answer = RawHttp.exchange(port, request, ANSWER_TIMEOUT);
            if (answer.writeFailure() != null) {
                ledger.noteWriteCutShort(probe, answer.status() + " after " + answer.writeFailure());
            }
            return new Outcome(answer.status(), answer.header("Content-Type"), answer.header("Next-Cursor"),
                    answer.body(), null, true, millisSince(started));
        } catch (RawHttp.NoAnswer e) {
            return Outcome.failed(e.getMessage(), true, millisSince(started));
        }
    }

    /**
     * Why java.net.http got no answer, in the words {@link RawHttp.NoAnswer} uses: it reports a connection that
     * ended before any byte of an answer as "header parser received no bytes" and a reset as the socket's own
     * error, each possibly wrapped, so the whole chain of causes goes into the report.
     */
    static String clientFailure(IOException failure) {
        StringBuilder chain = new StringBuilder(failure.toString());
        boolean reset = false;
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t != failure) {
                chain.append(" <- ").append(t);
            }
            String message = String.valueOf(t.getMessage()).toLowerCase(java.util.Locale.ROOT);
            reset |= message.contains("reset") || message.contains("broken pipe");
        }
        String how = failure instanceof java.net.http.HttpTimeoutException ? "TIMEOUT: no answer within "
                + ANSWER_TIMEOUT.toSeconds() + " s"
                : reset ? "RESET before an answer was read"
                : String.valueOf(failure.getMessage()).contains("received no bytes")
                ? "EOF before any byte of an answer (or a reset java.net.http reports as one)"
                : "no answer";
        return how + ", sent by java.net.http (" + chain + ")";
    }

    private static HttpRequest request(Probe probe, Replica replica) {
        HttpRequest.BodyPublisher body;
        if (probe.body() == null) {
            body = HttpRequest.BodyPublishers.noBody();
        } else if (probe.chunked()) {
            // No length known up front: java.net.http sends it chunked.
            byte[] bytes = probe.body();
            body = HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(bytes));
        } else {
            body = HttpRequest.BodyPublishers.ofByteArray(probe.body());
        }
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(replica.api("/").toString()
                        .replaceAll("/$", "") + probe.target()))
                .timeout(ANSWER_TIMEOUT)
                .method(probe.method(), body);
        for (Header header : probe.headers()) {
            builder.header(header.name(), header.value());
        }
        return builder.build();
    }

    /** The probe as bytes on the wire, for when java.net.http will not send it. */
    private static byte[] rawForm(Probe probe, int port) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes((probe.method() + " " + probe.target() + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n")
                .getBytes(StandardCharsets.UTF_8));
        probe.headers().forEach(h -> out.writeBytes((h.name() + ": " + h.value() + "\r\n").getBytes(StandardCharsets.UTF_8)));
        byte[] body = probe.body() == null ? new byte[0] : probe.body();
        if (probe.chunked()) {
            out.writeBytes("Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(HostileProbes.chunk(body, 8192));
        } else {
            out.writeBytes(("Content-Length: " + body.length + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(body);
        }
        return out.toByteArray();
    }

    private static long millisSince(long started) {
        return (System.nanoTime() - started) / 1_000_000;
    }

    // ---- after the fuzz ----

    private void reportCounts(DrillReport report) {
        report.figure("answers by status", ledger.statuses());
        report.line("requests by endpoint:");
        ledger.endpoints().forEach((endpoint, n) -> report.line(String.format("    %-40s %6d", endpoint, n)));
        report.line("requests by generator:");
        List<String> kinds = ledger.kinds().entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList();
        for (int i = 0; i < kinds.size(); i += 4) {
            report.line("    " + String.join("  ", kinds.subList(i, Math.min(kinds.size(), i + 4))));
        }
        report.figure("4xx bodies checked for JSON with a message", ledger.errorBodiesChecked());
    }

    /** The workers finish what the fuzz stored, so that the event counts below are final. */
    private static void awaitSynthesisSettled(DrillDatabase database, DrillReport report) throws InterruptedException {
        String open = "SELECT count(*) FROM policy_conflicts WHERE synthesis_state IN ('pending', 'in_progress')";
        Wait.holdsWithin("no conflict pending or in progress", Duration.ofSeconds(120),
                () -> database.count(open) == 0);
        report.figure("synthesis", database.count("SELECT count(*) FROM policy_conflicts WHERE synthesis_state = 'done'")
                + " done, " + database.count("SELECT count(*) FROM policy_conflicts WHERE synthesis_state = "
                + "'max_attempts_exceeded'") + " gave up, " + database.count(open) + " still open");
    }

    /**
     * The database against the answers: exactly the conflicts the answers said were created, each with the dedup
     * key its answer named; acknowledged and resolved exactly those an accepted request acknowledged or resolved,
     * with a resolution one of them sent; and one event per change.
     */
    private void checkRows(DrillDatabase database, DrillReport report, List<String> problems) {
        long conflicts = database.count("SELECT count(*) FROM policy_conflicts");
        compare(report, problems, "conflicts", ledger.created(), conflicts);
        ledger.createdPerOrg().forEach((org, n) -> compare(report, problems, "conflicts of org " + org, n,
                database.count("SELECT count(*) FROM policy_conflicts WHERE org_id = '" + org + "'")));

        Map<UUID, String> keys = ledger.answeredKeys();
        List<String> unfaithful = new ArrayList<>();
        for (String[] row : database.rows("SELECT id, dedup_key FROM policy_conflicts")) {
            String answered = keys.get(UUID.fromString(row[0]));
            if (answered == null) {
                unfaithful.add(row[0] + " was stored but no answer named it (dedup key "
                        + HostileLedger.printable(row[1]) + ")");
            } else if (!answered.equals(row[1])) {
                unfaithful.add(row[0] + " was answered as " + HostileLedger.printable(answered) + " but stored as "
                        + HostileLedger.printable(row[1]));
            }
        }
        report.figure("conflicts stored with another dedup key than their answer named", unfaithful.size());
        unfaithful.stream().limit(10).forEach(u -> report.line("    " + u));
        if (!unfaithful.isEmpty()) {
            problems.add(unfaithful.size() + " conflicts stored unlike their answers said");
        }

        Set<UUID> acknowledged = ids(database, "SELECT id FROM policy_conflicts WHERE acknowledged_at IS NOT NULL");
        compareSets(report, problems, "acknowledged", ledger.acknowledged(), acknowledged);
        Set<UUID> resolved = ids(database, "SELECT id FROM policy_conflicts WHERE inbox_status = 'resolved'");
        compareSets(report, problems, "resolved", ledger.resolved(), resolved);
        List<String> unsent = new ArrayList<>();
        for (String[] row : database.rows("SELECT id, resolution, resolution_note FROM policy_conflicts "
                + "WHERE inbox_status = 'resolved'")) {
            if (!ledger.resolutionWasSent(UUID.fromString(row[0]), row[1], row[2])) {
                unsent.add(row[0] + " resolved as " + row[1] + " with note " + (row[2] == null ? "null"
                        : HostileLedger.printable(HostileLedger.cut(row[2], 80))));
            }
        }
        report.figure("resolutions stored that no accepted request sent", unsent.size());
        unsent.stream().limit(10).forEach(u -> report.line("    " + u));
        if (!unsent.isEmpty()) {
            problems.add(unsent.size() + " resolutions stored that no accepted request sent");
        }

        // One snapshot for the worker's rows and their events: a merge and its event commit together.
        String[] found = database.rows("""
                SELECT (SELECT count(*) FROM conflict_events WHERE event_type = 'conflict_detected'),
                       (SELECT count(*) FROM conflict_events WHERE event_type = 'conflict_acknowledged'),
                       (SELECT count(*) FROM conflict_events WHERE event_type = 'conflict_resolved'),
                       (SELECT count(*) FROM conflict_events WHERE event_type = 'merge_synthesized'),
                       (SELECT count(*) FROM conflict_events WHERE event_type = 'synthesis_failed_permanently'),
                       (SELECT count(*) FROM conflict_events),
                       (SELECT count(*) FROM policy_conflicts WHERE synthesis_state = 'done'),
                       (SELECT count(*) FROM policy_conflicts WHERE synthesis_state = 'max_attempts_exceeded')
                """).get(0);
        long[] n = new long[found.length];
        for (int i = 0; i < found.length; i++) {
            n[i] = Long.parseLong(found[i]);
        }
        compare(report, problems, "conflict_detected events", ledger.created(), n[0]);
        compare(report, problems, "conflict_acknowledged events", ledger.acknowledged().size(), n[1]);
        compare(report, problems, "conflict_resolved events", ledger.resolved().size(), n[2]);
        compare(report, problems, "merge_synthesized events (one per done conflict)", n[6], n[3]);
        compare(report, problems, "synthesis_failed_permanently events (one per conflict given up)", n[7], n[4]);
        compare(report, problems, "events in all", ledger.created() + ledger.acknowledged().size()
                + ledger.resolved().size() + n[6] + n[7], n[5]);
    }

    private static void compare(DrillReport report, List<String> problems, String what, long expected, long found) {
        report.line(String.format("rows: %-62s expected %7d, found %7d%s", what, expected, found,
                expected == found ? "" : "  MISMATCH"));
        if (expected != found) {
            problems.add(what + ": expected " + expected + ", found " + found);
        }
    }

    private static void compareSets(DrillReport report, List<String> problems, String what, Set<UUID> expected,
                                    Set<UUID> found) {
        compare(report, problems, what + " conflicts", expected.size(), found.size());
        Set<UUID> unexplained = new HashSet<>(found);
        unexplained.removeAll(expected);
        Set<UUID> missing = new HashSet<>(expected);
        missing.removeAll(found);
        if (!unexplained.isEmpty() || !missing.isEmpty()) {
            report.line("    " + what + " without an accepted request: " + unexplained.stream().limit(5).toList()
                    + "; accepted but not stored: " + missing.stream().limit(5).toList());
            problems.add(what + " conflicts differ from the accepted requests");
        }
    }

    private static Set<UUID> ids(DrillDatabase database, String sql) {
        return database.rows(sql).stream().map(row -> UUID.fromString(row[0])).collect(Collectors.toSet());
    }

    /** ERROR lines in a replica's log: a request that gets a clean 4xx should not leave one behind. */
    private static void checkLog(Replica replica, DrillReport report, List<String> problems) {
        List<String> lines = replica.logSinceStart().lines().toList();
        List<String> errors = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("ERROR")) {
                String cause = i + 1 < lines.size() && lines.get(i + 1).startsWith("!") ? " " + lines.get(i + 1) : "";
                errors.add(HostileLedger.cut(lines.get(i) + cause, 400));
            }
        }
        long warnings = lines.stream().filter(l -> l.startsWith("WARN")).count();
        report.figure(replica.name() + " log", errors.size() + " ERROR lines, " + warnings + " WARN lines");
        errors.stream().limit(10).forEach(e -> report.line("    " + e));
        if (!errors.isEmpty()) {
            problems.add(replica.name() + " logged " + errors.size() + " ERROR lines");
        }
    }
}
