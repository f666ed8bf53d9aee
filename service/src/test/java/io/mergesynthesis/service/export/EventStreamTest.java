package io.mergesynthesis.service.export;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.mergesynthesis.service.db.EventLog;
import io.mergesynthesis.service.db.EventLog.EventType;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.testing.StreamReader;
import io.mergesynthesis.service.testing.TestDatabase;
import io.mergesynthesis.testsupport.Wait;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The cursor's promise: every committed event exactly once, in cursor order, however commits interleave. */
class EventStreamTest {

    /** How many other writers' transactions end while a held transaction stays open. */
    private static final int HELD_OPEN_FOR = 3;

    private TestDatabase database;
    private ScopedTransactions transactions;
    private EventExport export;
    private Jdbi superuser;
    private final UUID orgA = UUID.randomUUID();
    private final UUID orgB = UUID.randomUUID();
    private final Map<UUID, List<UUID>> conflicts = new java.util.HashMap<>();

    @BeforeEach
    void database() {
        database = TestDatabase.fresh();
        transactions = database.transactions();
        export = new EventExport(transactions);
        superuser = database.jdbi();
        for (UUID org : List.of(orgA, orgB)) {
            List<UUID> ids = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                UUID id = UUID.randomUUID();
                superuser.useHandle(h -> h.createUpdate("""
                                INSERT INTO policy_conflicts (id, org_id, dedup_key, action, target, rules,
                                                              winner_policy_id, detected_at)
                                VALUES (:id, :org, :key, 'tool_call', 'jira.*', '[]', 'p1', now())""")
                        .bind("id", id).bind("org", org).bind("key", "k-" + id).execute());
                ids.add(id);
            }
            conflicts.put(org, ids);
        }
    }

    private long append(org.jdbi.v3.core.Handle handle, UUID org) {
        List<UUID> ids = conflicts.get(org);
        EventLog.append(handle, org, ids.get(ThreadLocalRandom.current().nextInt(ids.size())),
                EventType.CONFLICT_DETECTED, "{\"writer\": \"test\"}");
        return handle.createQuery("SELECT currval('conflict_events_id_seq')").mapTo(Long.class).one();
    }

    /** Every committed event id in cursor order, as the database has it; optionally one org's. */
    private List<Long> committedInCursorOrder(UUID org) {
        return superuser.withHandle(h -> h.createQuery(
                        "SELECT id FROM conflict_events WHERE (CAST(:org AS uuid) IS NULL OR org_id = :org) ORDER BY tx_id, id")
                .bind("org", org).mapTo(Long.class).list());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anEventWhoseTransactionCommitsLateIsHeldBackNotSkipped() throws Exception {
        StreamReader reader = new StreamReader(export, null);
        CountDownLatch inserted = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        // The early transaction writes first (lower id, lower transaction id) but commits last.
        CompletableFuture<Long> early = CompletableFuture.supplyAsync(() -> transactions.inOrg(orgA, h -> {
            long id = append(h, orgA);
            inserted.countDown();
            await(release);
            return id;
        }));
        assertThat(inserted.await(10, TimeUnit.SECONDS)).isTrue();
        long late = transactions.inOrg(orgB, h -> append(h, orgB));

        // A cursor on the event id would hand out `late` now and never look back at `early`.
        assertThat(reader.next(100)).isEmpty();
        String cursorWhileHeld = reader.cursor();

        release.countDown();
        long earlyId = early.get(10, TimeUnit.SECONDS);
        List<JsonNode> page = reader.next(100);
        assertThat(page).extracting(StreamReader::eventId).containsExactly(earlyId, late);
        assertThat(reader.next(100)).isEmpty();
        assertThat(cursorWhileHeld).isEqualTo(EventCursor.encode(io.mergesynthesis.service.core.EventPosition.START));
    }

    /**
     * Transaction ids are numbers: a page whose ids cross a power of ten (99 to 100, 999 to 1000) holds every
     * event up to its limit, in the numbers' order, not only those up to the last id that sorts highest as text.
     */
    @Test
    void aPageWhoseTransactionIdsCrossAPowerOfTenIsWholeAndInOrder() {
        long oldestRunning = superuser.withHandle(h -> h.createQuery(
                "SELECT pg_snapshot_xmin(pg_current_snapshot())::text").mapTo(Long.class).one());
        long power = 10;
        while (power * 10 + 20 < oldestRunning) {
            power *= 10;
        }
        long firstTx = power - 10;
        List<Long> written = new ArrayList<>();
        for (long t = firstTx; t < power + 10; t++) {
            long tx = t;
            UUID org = tx % 2 == 0 ? orgA : orgB;
            // The events of finished transactions with these ids, as if written by them.
            written.add(superuser.withHandle(h -> h.createQuery("""
                            INSERT INTO conflict_events (tx_id, org_id, conflict_id, event_type, details)
                            VALUES (CAST(:tx AS text)::xid8, :org, :conflict, 'conflict_detected', '{}')
                            RETURNING id""")
                    .bind("tx", Long.toString(tx)).bind("org", org).bind("conflict", conflicts.get(org).get(0))
                    .mapTo(Long.class).one()));
        }

        List<JsonNode> page = new StreamReader(export, null).next(100);
        assertThat(page).extracting(StreamReader::eventId).containsExactlyElementsOf(written);
        StreamReader onlyA = new StreamReader(export, orgA);
        assertThat(onlyA.next(100)).extracting(StreamReader::eventId)
                .containsExactlyElementsOf(committedInCursorOrder(orgA));
        assertThat(onlyA.next(100)).isEmpty();
        // A page cut by its limit ends at the limit, past the power of ten.
        assertThat(new StreamReader(export, null).next(15)).extracting(StreamReader::eventId)
                .containsExactlyElementsOf(written.subList(0, 15));
    }

    @Test
    void aRolledBackEventNeverAppearsAndDoesNotHoldTheStream() {
        long kept = transactions.inOrg(orgA, h -> append(h, orgA));
        try {
            transactions.inOrg(orgA, h -> {
                append(h, orgA);
                throw new IllegalStateException("roll back");
            });
        } catch (IllegalStateException expected) {
            // the event above is gone with its transaction
        }
        long after = transactions.inOrg(orgA, h -> append(h, orgA));
        assertThat(new StreamReader(export, orgA).next(100)).extracting(StreamReader::eventId)
                .containsExactly(kept, after);
    }

    /**
     * Ten writers commit in whatever order the scheduler gives them, some holding their transaction open for
     * a while, some rolling back; two readers follow the stream meanwhile (every org, and org A alone) in
     * small pages. At the end each reader has every committed event of its scope exactly once, in cursor order.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void readersFollowingTheCursorGetEveryCommittedEventExactlyOnce() throws Exception {
        int writers = 10;
        int transactionsPerWriter = 25;
        ExecutorService pool = Executors.newFixedThreadPool(writers + 2);
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicInteger ended = new AtomicInteger();
        try {
            List<Future<?>> writes = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int writer = w;
                writes.add(pool.submit(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int t = 0; t < transactionsPerWriter; t++) {
                        UUID org = random.nextBoolean() ? orgA : orgB;
                        boolean rollBack = random.nextInt(8) == 0;
                        boolean heldOpen = writer % 3 == 0 && t % 5 == 0;
                        try {
                            transactions.inOrg(org, h -> {
                                for (int e = random.nextInt(1, 4); e > 0; e--) {
                                    append(h, org);
                                }
                                if (heldOpen) {
                                    // Held open while other writers commit events with later ids, so that
                                    // commits land out of the order of their ids. Near the end of the run
                                    // fewer writers are left to commit: then the hold gives up after a while.
                                    int seen = ended.get();
                                    Wait.holdsWithin("other transactions to end while this one is open",
                                            Duration.ofMillis(300), () -> ended.get() >= seen + HELD_OPEN_FOR);
                                }
                                if (rollBack) {
                                    throw new IllegalStateException("roll back");
                                }
                                return null;
                            });
                        } catch (IllegalStateException expected) {
                            // a rolled-back transaction's events must never be exported
                        } finally {
                            ended.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            Future<List<Long>> everyOrg = pool.submit(() -> follow(new StreamReader(export, null), writing));
            Future<List<Long>> onlyA = pool.submit(() -> follow(new StreamReader(export, orgA), writing));
            for (Future<?> write : writes) {
                write.get(90, TimeUnit.SECONDS);
            }
            writing.set(false);

            List<Long> all = everyOrg.get(30, TimeUnit.SECONDS);
            List<Long> a = onlyA.get(30, TimeUnit.SECONDS);
            List<Long> expectedAll = committedInCursorOrder(null);
            assertThat(expectedAll).hasSizeGreaterThan(writers * transactionsPerWriter / 2);
            assertThat(new HashSet<>(all)).hasSameSizeAs(all);
            assertThat(all).containsExactlyElementsOf(expectedAll);
            assertThat(a).containsExactlyElementsOf(committedInCursorOrder(orgA));
            // The interleaving really happened: in cursor order, event ids are not simply ascending.
            List<Long> sorted = new ArrayList<>(all);
            Collections.sort(sorted);
            assertThat(all).isNotEqualTo(sorted);
        } finally {
            writing.set(false);
            pool.shutdownNow();
        }
    }

    /** Reads in pages of 7 while the writers run, then until a page after their end comes back empty. */
    private static List<Long> follow(StreamReader reader, AtomicBoolean writing) throws InterruptedException {
        List<Long> seen = new ArrayList<>();
        while (true) {
            boolean finalRound = !writing.get();
            List<JsonNode> page = reader.next(7);
            page.forEach(line -> seen.add(StreamReader.eventId(line)));
            if (page.isEmpty() && finalRound) {
                return seen;
            }
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("never released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
