package io.mergesynthesis.drills;

import io.mergesynthesis.harness.Product;
import io.mergesynthesis.harness.Replica;
import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.standin.Stats;
import io.mergesynthesis.standin.Tokens;
import io.mergesynthesis.testsupport.Wait;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * kill -9 on the batch lane (docs/adr/0072-the-batch-lane.md). Replicas send the conflicts of orgs in lane batch to
 * the stand-in's batch APIs, Anthropic's Message Batches and OpenAI's Batch API, and a replica is killed outright at
 * each of three moments of a batch's life: between the create and its record (the stand-in holds the create's
 * answer back), while the batch is being polled (the stand-in holds the poll's answer back, so the hold is on the
 * row), and while the results of an ended batch are being stored. Each protocol, each moment, with one replica and
 * with three: twelve cases. Then, with three replicas and no kill, each protocol: a batch that expires with part of it
 * answered, one whose every third request fails, one with conflicts resolved while batched, one canceled through
 * the API with part of it answered. Twenty cases, each with an org of its own, one after the other on one fleet.
 *
 * <p>The judge is the database and the stand-in's own books: every conflict of the case's org merged, with one
 * suggested merge and one {@code stored} ledger row; the stand-in made one batch for the case and billed each
 * custom_id in it once, no conflict in two billed requests (across every batch of the case, where requests that
 * expired, failed or were canceled went in another); the ledger's batch rows as many as the stand-in's
 * billed requests, and their tokens the tokens billed, to the token.
 *
 * <p>A replica killed while it holds a batch's poll leaves the hold on the row until it runs out: a live poller
 * renews its hold as it goes, a dead one does not. The replicas here hold for {@link #HOLD} (twice the request
 * timeout, the least the service takes), and the drill waits each dead holder's hold out, reporting how long it
 * had left.
 */
@Tag("drill")
class BatchLaneKillDrill {

    private static final String NAME = "batch-lane-kill";
    private static final String KEY = "drill-key";
    private static final Duration LONG_WAIT = Duration.ofSeconds(120);
    private static final Duration FAST = Duration.ofMillis(5);
    /** Each provider's request timeout: a create unanswered this long is given up by its sender. */
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(3);
    /** The create's answer waits longer than any sender does: only a kill or the timeout ends the wait. */
    private static final Duration CREATE_HELD = Duration.ofSeconds(60);
    /** A poll's answer waits this long, within the request timeout: the poller is mid-poll, its hold on the row. */
    private static final Duration RETRIEVE_HELD = Duration.ofMillis(1500);
    private static final int FEW = 12;
    private static final int MANY = 200;
    /** {@code llm.batch.pollHold}: how long a dead poller's hold keeps its batch from the others. */
    private static final Duration HOLD = REQUEST_TIMEOUT.multipliedBy(2);
    /** Only the cases whose name contains this, when set ({@code "anthropic, 1 replica, killed while polling"}). */
    private static final String ONLY = System.getProperty("drill.batch.only", "");

    /** A protocol and the model that reaches it. */
    private record Protocol(String name, String model, String listPath) {
    }

    private static final List<Protocol> PROTOCOLS = List.of(
            new Protocol("anthropic", "anthropic/claude-haiku-4-5", "/v1/messages/batches"),
            new Protocol("openai", "openai/gpt-4.1-mini", "/v1/batches"));

    /**
     * When in a batch's life a replica dies; or, with no kill, what else happens to a batch: it expires with part
     * of it answered, some of its requests fail, some of its conflicts are resolved while it runs, it is canceled.
     */
    private enum Moment {
        CREATE, POLL, STORE, EXPIRE, ERRORS, RESOLVE, CANCEL;

        boolean kills() {
            return this == CREATE || this == POLL || this == STORE;
        }
    }

    /** Of a batch of {@link #FEW}: answered before it expires, or before its cancel. */
    private static final int ANSWERED_FIRST = 5;
    /** Of a batch of {@link #FEW}: resolved while in it. */
    private static final int RESOLVED = 3;
    /** Every third request of a batch fails, in the errors case. */
    private static final int ERROR_EVERY = 3;

    /** What one case found. */
    private record Result(String name, boolean passed, String figures) {
    }

    @Test
    void aReplicaKilledAtAnyMomentOfABatchLosesNoConflictAndBillsNothingTwice() throws Exception {
        DrillReport report = new DrillReport(NAME);
        Behaviour behaviour = new Behaviour().expectedKey(KEY).batchResultSeed(7L);
        try (StandInProvider standIn = StandInProvider.start(behaviour);
             DrillDatabase database = DrillDatabase.start(NAME)) {
            Path dir = Product.workDirectory("drills").resolve(NAME);
            Map<String, String> environment = StandInEnvironment.of(standIn, KEY, PROTOCOLS.get(0).model());
            // No provider may be a real one: openai goes to the stand-in too.
            environment.put("OPENAI_BASE_URL", standIn.openAiBaseUrl());
            environment.put("OPENAI_API_KEY", KEY);
            Map<String, String> settings = new LinkedHashMap<>();
            settings.put("synthesis.workers", "2");
            settings.put("llm.batch.pollInterval", "200ms");
            settings.put("llm.batch.maxRequests", "500");
            settings.put("llm.batch.pollHold", HOLD.toSeconds() + "s");
            // A request that failed in a batch waits this long before its next batch.
            settings.put("synthesis.baseBackoff", "200ms");
            // Every third request of a batch fails in one case: a conflict unlucky enough to be third in three
            // batches running would be given up at the default three attempts.
            settings.put("synthesis.maxAttempts", "5");
            for (String provider : List.of("anthropic", "openai", "local")) {
                settings.put("llm.providers." + provider + ".requestTimeout", REQUEST_TIMEOUT.toSeconds() + "s");
            }
            report.line("settings: " + settings + "; create answers held " + CREATE_HELD.toSeconds()
                    + " s, poll answers held " + RETRIEVE_HELD.toMillis() + " ms when a case asks; holds "
                    + HOLD.toSeconds() + " s, renewed by a live poller and waited out after a dead one");

            List<Replica> replicas = new ArrayList<>();
            for (int i = 1; i <= 3; i++) {
                replicas.add(DrillReplicas.of("r" + i, database, dir, settings, environment));
            }
            List<Result> results = new ArrayList<>();
            long started = System.nanoTime();
            try {
                replicas.get(0).launch().awaitHealthy(LONG_WAIT);
                // Tokens go in the schema the first replica made.
                String platform = ApiClient.mintToken(database, "platform", null);
                for (int fleet : List.of(1, 3)) {
                    int size = fleet;
                    boolean any = PROTOCOLS.stream().anyMatch(protocol -> java.util.Arrays.stream(Moment.values())
                            .anyMatch(moment -> (moment.kills() || size > 1)
                                    && Case.name(protocol, size, moment).contains(ONLY)));
                    if (!any) {
                        continue;
                    }
                    List<Replica> running = replicas.subList(0, fleet);
                    for (Replica replica : running) {
                        if (!replica.isAlive()) {
                            replica.launch();
                        }
                    }
                    running.forEach(replica -> replica.awaitHealthy(LONG_WAIT));
                    for (Protocol protocol : PROTOCOLS) {
                        for (Moment moment : Moment.values()) {
                            if (!moment.kills() && fleet == 1) {
                                continue;
                            }
                            if (!Case.name(protocol, fleet, moment).contains(ONLY)) {
                                continue;
                            }
                            Case run = new Case(report, standIn, database, running, platform, protocol, moment);
                            results.add(run.run());
                        }
                    }
                    // A replica killed in the fleet's last case is seen to start again too.
                    running.forEach(replica -> replica.awaitHealthy(LONG_WAIT));
                }
            } finally {
                replicas.forEach(Replica::stop);
                report.figure("whole drill", seconds(System.nanoTime() - started));
                for (Result result : results) {
                    report.line((result.passed() ? "PASS " : "FAIL ") + result.name() + ": " + result.figures());
                }
                report.write();
            }
            List<Result> failed = results.stream().filter(result -> !result.passed()).toList();
            long kills = java.util.Arrays.stream(Moment.values()).filter(Moment::kills).count();
            long expected = PROTOCOLS.size() * (2 * kills + (Moment.values().length - kills));
            if ((ONLY.isEmpty() && results.size() != expected) || results.isEmpty() || !failed.isEmpty()) {
                throw new AssertionError(failed.size() + " of " + results.size() + " cases failed: " + failed);
            }
        }
    }

    /** One protocol, one moment, one fleet: an org of its own, its conflicts, one kill, and the audit. */
    private static final class Case {

        private final DrillReport report;
        private final StandInProvider standIn;
        private final DrillDatabase database;
        private final List<Replica> fleet;
        private final String platform;
        private final Protocol protocol;
        private final Moment moment;
        private final String name;
        private final UUID org = UUID.randomUUID();
        private final int conflicts;
        /** Batches the stand-in makes for the case; 0 when it is not known in advance (at least two then). */
        private final int batches;
        /** Conflicts resolved while batched: they keep their resolution, their answer on record as discarded. */
        private final int resolved;

        Case(DrillReport report, StandInProvider standIn, DrillDatabase database, List<Replica> fleet,
             String platform, Protocol protocol, Moment moment) {
            this.report = report;
            this.standIn = standIn;
            this.database = database;
            this.fleet = fleet;
            this.platform = platform;
            this.protocol = protocol;
            this.moment = moment;
            this.name = name(protocol, fleet.size(), moment);
            this.conflicts = moment == Moment.STORE ? MANY : FEW;
            // Requests that expired, were canceled or failed wait again each as its result is read, so that another
            // replica's sender may batch them apart: two batches or more, how many is the replicas' timing.
            this.batches = moment.kills() || moment == Moment.RESOLVE ? 1 : 0;
            this.resolved = moment == Moment.RESOLVE ? RESOLVED : 0;
        }

        /** What a case is called in the report, and what {@code -Ddrill.batch.only} matches. */
        static String name(Protocol protocol, int fleet, Moment moment) {
            return protocol.name() + ", " + fleet + " replica" + (fleet == 1 ? "" : "s") + ", " + switch (moment) {
                case CREATE -> "killed between the create and its record";
                case POLL -> "killed while polling";
                case STORE -> "killed while storing results";
                case EXPIRE -> "batch expired with " + ANSWERED_FIRST + " of " + FEW + " answered";
                case ERRORS -> "every " + ERROR_EVERY + "rd request of a batch failed";
                case RESOLVE -> RESOLVED + " conflicts resolved while batched";
                case CANCEL -> "batch canceled with " + ANSWERED_FIRST + " of " + FEW + " answered";
            };
        }

        Result run() {
            awaitFleet();
            long started = System.nanoTime();
            List<String> figures = new ArrayList<>();
            Stats.Snapshot before = standIn.stats();
            try {
                inBatchLane();
                switch (moment) {
                    case CREATE -> killBetweenCreateAndRecord(figures);
                    case POLL -> killWhilePolling(figures);
                    case STORE -> killWhileStoring(figures);
                    case EXPIRE -> expirePartly(figures);
                    case ERRORS -> standIn.endBatch(recorded());
                    case RESOLVE -> resolveWhileBatched(figures);
                    case CANCEL -> cancelPartly(figures);
                }
                endEveryBatchUntilFinished();
                String audit = audit(before, figures);
                figures.add("took " + seconds(System.nanoTime() - started));
                report.line(name + ": " + String.join("; ", figures));
                return new Result(name, audit.isEmpty(), String.join("; ", figures)
                        + (audit.isEmpty() ? "" : "; FAILED: " + audit));
            } catch (Throwable e) {
                figures.add("took " + seconds(System.nanoTime() - started));
                figures.add("rows: " + rowStates());
                report.line(name + ": FAILED " + e + "; " + String.join("; ", figures));
                return new Result(name, false, e + "; " + String.join("; ", figures));
            } finally {
                standIn.behaviour().batchCreateDelay(Duration.ZERO).batchRetrieveDelay(Duration.ZERO)
                        .batchErrorEvery(0);
                // A killed replica starts again at once; the next case waits for it (see awaitFleet), so that its
                // start overlaps the next fleet's own starts.
                for (Replica replica : fleet) {
                    if (!replica.isAlive()) {
                        replica.launch();
                    }
                }
            }
        }

        /** Every case starts with its whole fleet running. */
        private void awaitFleet() {
            fleet.forEach(replica -> replica.awaitHealthy(LONG_WAIT));
        }

        /** The org in lane batch with the case's model, then its conflicts reported. */
        private void inBatchLane() throws Exception {
            Replica replica = live();
            HttpResponse<String> put = ApiClient.put(replica.api("/v1/orgs/" + org + "/synthesis"), platform,
                    "{\"model\": \"" + protocol.model() + "\", \"lane\": \"batch\"}");
            if (put.statusCode() != 200) {
                throw new IllegalStateException("putting org " + org + " in lane batch answered " + put.statusCode()
                        + ": " + put.body());
            }
            if (moment == Moment.CREATE) {
                standIn.behaviour().batchCreateDelay(CREATE_HELD);
            }
            if (moment == Moment.ERRORS) {
                standIn.behaviour().batchErrorEvery(ERROR_EVERY);
            }
            String ingest = ApiClient.mintToken(database, "ingest", org);
            StringBuilder body = new StringBuilder("{\"conflicts\": [");
            for (int i = 0; i < conflicts; i++) {
                body.append(i == 0 ? "" : ",").append(ApiClient.conflictJson(org, "jira.create_issue", i));
            }
            HttpResponse<String> posted = ApiClient.post(replica.api("/v1/conflicts"), ingest,
                    body.append("]}").toString());
            if (posted.statusCode() != 200) {
                throw new IllegalStateException("ingest answered " + posted.statusCode() + ": " + posted.body());
            }
        }

        /**
         * 1. The stand-in has made the batch and holds its answer back; the row has no provider id. Every replica
         * is killed (whichever sent it is among them) and started again: the batch is found at the provider, nothing
         * is sent again while it exists, and once it ends every conflict merges.
         */
        private void killBetweenCreateAndRecord(List<String> figures) throws Exception {
            Set<String> earlier = new HashSet<>(standIn.batchesInProgress());
            String made = Wait.forValue("the stand-in holding a new batch while the row of " + name
                    + " has no provider id", LONG_WAIT, FAST, () -> {
                        Optional<String> fresh = standIn.batchesInProgress().stream()
                                .filter(id -> !earlier.contains(id)).findFirst();
                        boolean unrecorded = count("SELECT count(*) FROM llm_batches WHERE org_id = ?"
                                + " AND state = 'sending' AND provider_batch_id IS NULL") == 1;
                        return fresh.isPresent() && unrecorded ? fresh.get() : null;
                    }, java.util.Objects::nonNull);
            long killStarted = System.nanoTime();
            List<String> killed = new ArrayList<>();
            for (Replica replica : fleet) {
                replica.kill();
                killed.add(replica.name());
            }
            standIn.behaviour().batchCreateDelay(Duration.ZERO);
            long unrecorded = count("SELECT count(*) FROM llm_batches WHERE org_id = ? AND provider_batch_id IS NULL");
            figures.add("SIGKILL " + killed + " " + millis(System.nanoTime() - killStarted)
                    + " after the stand-in made " + made + ", rows still without a provider id: " + unrecorded);
            if (unrecorded != 1) {
                throw new AssertionError("the create's answer was recorded before the kill: no kill in the window");
            }
            long creates = standIn.stats().batches(protocol.name());
            long lists = standIn.stats().path(protocol.listPath());
            fleet.forEach(Replica::launch);
            fleet.forEach(replica -> replica.awaitHealthy(LONG_WAIT));
            // The pollers look for the batch at the provider. Anthropic's batches carry nothing of ours until they
            // end: the poller lists them (three lists seen) and decides nothing. OpenAI's carry our id: the batch is
            // adopted while in progress, then polled (three looks at it seen).
            if (protocol.name().equals("openai")) {
                Wait.until("the batch of " + name + " adopted while in progress", LONG_WAIT, Duration.ofMillis(50),
                        () -> count("SELECT count(*) FROM llm_batches WHERE org_id = ? AND provider_batch_id = '"
                                + made + "'") == 1);
                long looks = standIn.stats().path(protocol.listPath() + "/" + made);
                Wait.until("the adopted batch of " + name + " polled three times", LONG_WAIT, Duration.ofMillis(50),
                        () -> standIn.stats().path(protocol.listPath() + "/" + made) - looks >= 3);
            } else {
                Wait.until("the pollers of " + name + " to list the provider's batches three times", LONG_WAIT,
                        Duration.ofMillis(50), () -> standIn.stats().path(protocol.listPath()) - lists >= 3);
            }
            long batchedStill = count("SELECT count(*) FROM policy_conflicts WHERE org_id = ?"
                    + " AND synthesis_state = 'batched'");
            long sentAgain = standIn.stats().batches(protocol.name()) - creates;
            figures.add("after the restart, while the batch is in progress: " + batchedStill + " of " + conflicts
                    + " conflicts still batched, " + sentAgain + " batches created again");
            if (sentAgain != 0 || batchedStill != conflicts) {
                throw new AssertionError("conflicts of a batch the provider holds were sent again or let go: "
                        + sentAgain + " creates, " + batchedStill + " batched");
            }
            standIn.endBatch(made);
            Wait.until("the batch of " + name + " adopted", LONG_WAIT, Duration.ofMillis(50),
                    () -> count("SELECT count(*) FROM llm_batches WHERE org_id = ? AND provider_batch_id = '"
                            + made + "'") == 1);
        }

        /**
         * 2. The batch is sent and recorded; the replica whose poll holds the row (its poll's answer held back) is
         * killed and started again; the batch ends; every conflict merges.
         */
        private void killWhilePolling(List<String> figures) throws Exception {
            String made = recorded();
            standIn.behaviour().batchRetrieveDelay(RETRIEVE_HELD);
            String owner = Wait.forValue("a replica holding the poll of " + name, LONG_WAIT, FAST,
                    () -> first("SELECT poll_owner FROM llm_batches WHERE org_id = ?"
                            + " AND poll_until > now()"), java.util.Objects::nonNull);
            Replica victim = holder(owner);
            victim.kill();
            standIn.behaviour().batchRetrieveDelay(Duration.ZERO);
            figures.add("SIGKILL " + victim.name() + " (" + owner + ") mid-poll of " + made);
            holdLeft(owner, figures);
            victim.launch();
            standIn.endBatch(made);
        }

        /**
         * 3. Many requests in the batch, ended; the replica storing its results is killed while some conflicts are
         * done and others still batched, and started again; every conflict merges.
         */
        private void killWhileStoring(List<String> figures) throws Exception {
            String made = recorded();
            standIn.endBatch(made);
            String owner = Wait.forValue("a replica storing the results of " + name
                            + " (a tenth done or more, some batched)",
                    LONG_WAIT, FAST, () -> {
                        String holder = first("SELECT poll_owner FROM llm_batches WHERE org_id = ?"
                                + " AND poll_until > now() AND state = 'ended'");
                        if (holder == null) {
                            return null;
                        }
                        long done = count("SELECT count(*) FROM policy_conflicts WHERE org_id = ?"
                                + " AND synthesis_state = 'done'");
                        return done >= conflicts / 10 && done < conflicts ? holder : null;
                    }, java.util.Objects::nonNull);
            Replica victim = holder(owner);
            victim.kill();
            long done = count("SELECT count(*) FROM policy_conflicts WHERE org_id = ? AND synthesis_state = 'done'");
            long batched = count("SELECT count(*) FROM policy_conflicts WHERE org_id = ?"
                    + " AND synthesis_state = 'batched'");
            figures.add("SIGKILL " + victim.name() + " (" + owner + ") storing the results of " + made + ": "
                    + done + " done, " + batched + " still batched, " + (conflicts - done - batched) + " other");
            if (done == conflicts) {
                throw new AssertionError("every result was stored before the kill: no kill in the window");
            }
            holdLeft(owner, figures);
            victim.launch();
        }

        /**
         * The batch expires with its first few answered: those merge, the rest wait again with no attempt counted,
         * go in a second batch and merge.
         */
        private void expirePartly(List<String> figures) {
            String made = recorded();
            standIn.expireBatch(made, ANSWERED_FIRST);
            figures.add(made + " expired with " + ANSWERED_FIRST + " answered");
        }

        /**
         * Some conflicts are resolved by an org admin while their requests are in the batch: once it ends, they keep
         * their resolution and leave the synthesis as not needed, their answers on record as discarded.
         */
        private void resolveWhileBatched(List<String> figures) throws Exception {
            String made = recorded();
            String admin = ApiClient.mintToken(database, "org_admin", org);
            List<UUID> chosen = database.list("SELECT id FROM policy_conflicts WHERE org_id = ?"
                    + " AND synthesis_state = 'batched' ORDER BY id LIMIT " + RESOLVED, UUID.class, org);
            for (UUID conflict : chosen) {
                HttpResponse<String> answer = ApiClient.post(live().api("/v1/conflicts/" + conflict + "/resolve"),
                        admin, "{\"resolution\": \"manual\", \"note\": \"settled by hand while batched\"}");
                if (answer.statusCode() != 200) {
                    throw new IllegalStateException("resolving " + conflict + " answered " + answer.statusCode()
                            + ": " + answer.body());
                }
            }
            long stillBatched = count("SELECT count(*) FROM policy_conflicts WHERE org_id = ?"
                    + " AND synthesis_state = 'batched' AND resolution IS NOT NULL");
            figures.add(chosen.size() + " conflicts resolved while in " + made + " (" + stillBatched
                    + " of them still batched after)");
            standIn.endBatch(made);
        }

        /**
         * A few requests answered, then the batch canceled through the API: the cancel reaches the provider from the
         * next poll, the rest come back canceled, wait again with no attempt counted, go in a second batch and merge.
         */
        private void cancelPartly(List<String> figures) throws Exception {
            String made = recorded();
            standIn.answerInBatch(made, ANSWERED_FIRST);
            String row = first("SELECT id::text FROM llm_batches WHERE org_id = ?");
            HttpResponse<String> answer = ApiClient.post(live().api("/v1/batches/" + row + "/cancel"), platform, "");
            if (answer.statusCode() != 202) {
                throw new IllegalStateException("cancelling batch " + row + " answered " + answer.statusCode() + ": "
                        + answer.body());
            }
            Wait.until("the cancel of " + made + " sent to the provider", LONG_WAIT, Duration.ofMillis(50),
                    () -> count("SELECT count(*) FROM llm_batches WHERE org_id = ? AND cancel_sent_at IS NOT NULL")
                            == 1);
            figures.add(made + " canceled (answered 202) with " + ANSWERED_FIRST + " answered; the cancel reached "
                    + "the provider");
            standIn.endBatch(made);
        }

        /** Ends each batch of the org the stand-in holds, as it is recorded, until every conflict is finished. */
        private void endEveryBatchUntilFinished() {
            Set<String> ended = new HashSet<>();
            Duration patience = moment == Moment.POLL || moment == Moment.STORE ? LONG_WAIT.plus(HOLD) : LONG_WAIT;
            Wait.until("every conflict of " + name + " finished", patience, Duration.ofMillis(50), () -> {
                if (count("SELECT count(*) FROM policy_conflicts WHERE org_id = ?"
                        + " AND synthesis_state IN ('done', 'not_needed')") == conflicts) {
                    return true;
                }
                if (moment.kills()) {
                    // The kill cases end their one batch themselves, at the moment they need.
                    return false;
                }
                for (String id : database.list("SELECT provider_batch_id FROM llm_batches WHERE org_id = ?"
                        + " AND provider_batch_id IS NOT NULL ORDER BY created_at", String.class, org)) {
                    if (standIn.batchesInProgress().contains(id) && ended.add(id)) {
                        standIn.endBatch(id);
                    }
                }
                return false;
            });
        }

        /** The stand-in's id for the case's batch, once its row records it. */
        private String recorded() {
            return Wait.forValue("the batch of " + name + " sent and recorded", LONG_WAIT, Duration.ofMillis(20),
                    () -> first("SELECT provider_batch_id FROM llm_batches WHERE org_id = ?"
                            + " AND provider_batch_id IS NOT NULL"), java.util.Objects::nonNull);
        }

        /** Reports how long the dead holder's hold had left; the case waits it out. */
        private void holdLeft(String owner, List<String> figures) {
            String left = first("SELECT round(extract(epoch FROM poll_until - now()))::text FROM llm_batches"
                    + " WHERE org_id = ? AND poll_owner = '" + owner + "' AND poll_until > now()");
            figures.add("the dead holder's hold had " + left + " s left");
        }

        /** The running replica of the fleet whose batch lane is {@code owner}. */
        private Replica holder(String owner) {
            for (Replica replica : fleet) {
                if (replica.isAlive() && owner.equals(replica.owner() + "/batch")) {
                    return replica;
                }
            }
            throw new IllegalStateException("no running replica's batch lane is " + owner);
        }

        private Replica live() {
            return fleet.stream().filter(Replica::isAlive).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no replica of " + name + " is running"));
        }

        /** Every end state the case holds the service to; empty when all hold, else what did not. */
        private String audit(Stats.Snapshot before, List<String> figures) {
            List<String> broken = new ArrayList<>();
            Stats.Snapshot after = standIn.stats();
            Set<UUID> batchRows = new HashSet<>(database.list("SELECT id FROM llm_batches WHERE org_id = ?",
                    UUID.class, org));
            Map<String, Long> billed = new HashMap<>();
            after.billedByCustomId().forEach((customId, times) -> {
                if (decode(customId).filter(ids -> batchRows.contains(ids[0])).isPresent()) {
                    billed.put(customId, times);
                }
            });
            Map<String, Tokens> tokens = standIn.billedTokensByCustomId();
            long billedInput = 0;
            long billedOutput = 0;
            Map<UUID, Integer> requestsByConflict = new HashMap<>();
            for (String customId : billed.keySet()) {
                Tokens used = tokens.get(customId);
                billedInput += used.input() + used.cacheRead() + used.cacheWrite();
                billedOutput += used.output();
                requestsByConflict.merge(decode(customId).get()[1], 1, Integer::sum);
            }
            long billedRequests = billed.values().stream().mapToLong(Long::longValue).sum();
            long billedTwice = billed.values().stream().filter(times -> times > 1).count();
            long conflictsInTwoRequests = requestsByConflict.values().stream().filter(n -> n > 1).count();
            long created = after.batches(protocol.name()) - before.batches(protocol.name());

            long stored = count("SELECT count(*) FROM policy_conflicts WHERE org_id = ?");
            long merged = count("SELECT count(*) FROM policy_conflicts WHERE org_id = ? AND synthesis_state = 'done'"
                    + " AND suggested_merge IS NOT NULL");
            long notNeeded = count("SELECT count(*) FROM policy_conflicts WHERE org_id = ?"
                    + " AND synthesis_state = 'not_needed' AND resolution = 'manual'");
            long notDone = count("SELECT count(*) FROM policy_conflicts WHERE org_id = ?"
                    + " AND synthesis_state NOT IN ('done', 'not_needed')");
            long mostAttempts = count("SELECT coalesce(max(attempts), 0) FROM policy_conflicts WHERE org_id = ?");
            long failures = count("SELECT count(*) FROM synthesis_attempt_history h JOIN policy_conflicts c"
                    + " ON c.id = h.conflict_id WHERE c.org_id = ? AND h.outcome = 'transient_failure'");
            long ledgerRows = count("SELECT count(*) FROM llm_usage_events WHERE org_id = ? AND lane = 'batch'");
            long otherLanes = count("SELECT count(*) FROM llm_usage_events WHERE org_id = ?"
                    + " AND lane IS DISTINCT FROM 'batch'");
            long storedRows = count("SELECT count(*) FROM llm_usage_events WHERE org_id = ? AND lane = 'batch'"
                    + " AND outcome = 'stored'");
            long discardedRows = count("SELECT count(*) FROM llm_usage_events WHERE org_id = ? AND lane = 'batch'"
                    + " AND outcome = 'discarded'");
            long withoutOneStored = count("SELECT count(*) FROM policy_conflicts c WHERE c.org_id = ?"
                    + " AND c.synthesis_state = 'done' AND (SELECT count(*) FROM llm_usage_events u"
                    + " WHERE u.conflict_id = c.id AND u.outcome = 'stored') <> 1");
            long ledgerInput = count("SELECT coalesce(sum(input_tokens + cache_read_tokens + cache_write_tokens), 0)"
                    + " FROM llm_usage_events WHERE org_id = ? AND lane = 'batch'");
            long ledgerOutput = count("SELECT coalesce(sum(output_tokens), 0) FROM llm_usage_events"
                    + " WHERE org_id = ? AND lane = 'batch'");

            figures.add("conflicts " + stored + ", merged " + merged + ", resolved and not needed " + notNeeded
                    + ", lost (neither) " + notDone + "; attempts at most " + mostAttempts + ", failed attempts "
                    + failures);
            figures.add("stand-in: " + created + " batches created, " + billedRequests + " requests billed ("
                    + billed.size() + " custom_ids, " + billedTwice + " billed twice, " + conflictsInTwoRequests
                    + " conflicts in two billed requests), tokens in " + billedInput + " out " + billedOutput);
            figures.add("ledger: " + ledgerRows + " batch rows (" + storedRows + " stored, " + discardedRows
                    + " discarded, " + otherLanes
                    + " in another lane), tokens in " + ledgerInput + " out " + ledgerOutput);

            check(broken, stored == conflicts, "conflicts stored " + stored + " of " + conflicts);
            check(broken, merged == conflicts - resolved,
                    "conflicts merged " + merged + " of " + (conflicts - resolved));
            check(broken, notNeeded == resolved, notNeeded + " resolved conflicts not needed, of " + resolved);
            check(broken, notDone == 0, notDone + " conflicts neither merged nor resolved (lost)");
            check(broken, batches == 0 ? created >= 2 : created == batches, created + " batches created, not "
                    + (batches == 0 ? "two or more" : batches));
            check(broken, moment == Moment.ERRORS || mostAttempts == 1, "a conflict at attempt " + mostAttempts
                    + " where no attempt failed");
            check(broken, moment != Moment.ERRORS || failures > 0, "no failed attempt where requests failed");
            check(broken, billedTwice == 0, billedTwice + " custom_ids billed more than once");
            check(broken, conflictsInTwoRequests == 0, conflictsInTwoRequests + " conflicts in two billed requests");
            check(broken, billedRequests == conflicts, billedRequests + " requests billed for " + conflicts
                    + " conflicts");
            check(broken, ledgerRows == billedRequests, ledgerRows + " ledger rows for " + billedRequests
                    + " billed requests");
            check(broken, otherLanes == 0, otherLanes + " ledger rows outside the batch lane");
            check(broken, storedRows == conflicts - resolved && withoutOneStored == 0, storedRows + " stored rows, "
                    + withoutOneStored + " merged conflicts without exactly one");
            check(broken, discardedRows == resolved, discardedRows + " discarded rows for " + resolved
                    + " conflicts resolved while batched");
            check(broken, ledgerInput == billedInput && ledgerOutput == billedOutput, "ledger tokens " + ledgerInput
                    + "/" + ledgerOutput + ", billed " + billedInput + "/" + billedOutput);
            return String.join(", ", broken);
        }

        /** The first column of the first row of {@code sql} (one {@code ?}: the org), as text; null for none. */
        private String first(String sql) {
            List<String> values = database.list(sql, String.class, org);
            return values.isEmpty() ? null : values.get(0);
        }

        private long count(String sql) {
            return database.count(sql, org);
        }

        /** Every batch row and conflict state of the org, for a case that failed. */
        private String rowStates() {
            try {
                StringBuilder out = new StringBuilder();
                for (String[] row : database.rows("SELECT id, state, provider_batch_id, poll_owner, poll_until"
                        + " FROM llm_batches WHERE org_id = '" + org + "'")) {
                    out.append("batch ").append(String.join(" ", row)).append("; ");
                }
                for (String[] row : database.rows("SELECT synthesis_state, count(*) FROM policy_conflicts"
                        + " WHERE org_id = '" + org + "' GROUP BY 1")) {
                    out.append(row[0]).append(" ").append(row[1]).append("; ");
                }
                return out.toString();
            } catch (RuntimeException e) {
                return "unreadable: " + e;
            }
        }
    }

    private static void check(List<String> broken, boolean holds, String otherwise) {
        if (!holds) {
            broken.add(otherwise);
        }
    }

    /** The batch row's id and the conflict's id a custom_id of the service carries (two 22-character halves). */
    static Optional<UUID[]> decode(String customId) {
        if (customId == null || customId.length() != 44) {
            return Optional.empty();
        }
        try {
            return Optional.of(new UUID[] {uuid(customId.substring(0, 22)), uuid(customId.substring(22))});
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static UUID uuid(String half) {
        ByteBuffer bytes = ByteBuffer.wrap(Base64.getUrlDecoder().decode(half));
        return new UUID(bytes.getLong(), bytes.getLong());
    }

    private static String seconds(long nanos) {
        return String.format("%.1f s", nanos / 1e9);
    }

    private static String millis(long nanos) {
        return (nanos / 1_000_000) + " ms";
    }
}
