package io.mergesynthesis.service.requeue;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.testing.Marked;
import io.mergesynthesis.service.testing.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The bulk re-queue's batches, on the real database, with a batch size small enough to see them. */
class ConflictRequeueTest {

    @Test
    void aLargeSetIsRequeuedInBoundedTransactionsWithOneEventPerConflict() {
        TestDatabase database = TestDatabase.fresh();
        Jdbi db = database.jdbi();
        UUID org = UUID.randomUUID();
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            ids.add(Marked.conflict(db, org, "synthesizer"));
        }
        UUID otherReason = Marked.conflict(db, org, "invalid_json");

        long requeued = new ConflictRequeue(database.transactions(), 7)
                .matching(Requester.commandLine(), new RequeueFilter(org, "synthesizer"));

        assertThat(requeued).isEqualTo(25);
        assertThat(ids).allSatisfy(id -> assertThat(Marked.row(db, id)).isEqualTo("pending|0|||claimable"));
        assertThat(Marked.row(db, otherReason)).startsWith("max_attempts_exceeded|");
        // Each event was written by the transaction of its batch: 7 + 7 + 7 + 4.
        List<Long> perTransaction = db.withHandle(h -> h.createQuery("""
                        SELECT count(*) FROM conflict_events WHERE event_type = 'synthesis_requeued'
                        GROUP BY tx_id ORDER BY count(*) DESC""")
                .mapTo(Long.class).list());
        assertThat(perTransaction).containsExactly(7L, 7L, 7L, 4L);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void twoBulkRequeuesAtOnceRequeueEachConflictOnce() throws Exception {
        TestDatabase database = TestDatabase.fresh();
        Jdbi db = database.jdbi();
        UUID org = UUID.randomUUID();
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            ids.add(Marked.conflict(db, org, "unknown"));
        }
        ConflictRequeue requeue = new ConflictRequeue(database.transactions(), 5);
        RequeueFilter filter = new RequeueFilter(null, "unknown");

        CompletableFuture<Long> one = CompletableFuture.supplyAsync(() ->
                requeue.matching(Requester.commandLine(), filter));
        CompletableFuture<Long> two = CompletableFuture.supplyAsync(() ->
                requeue.matching(Requester.commandLine(), filter));

        assertThat(one.get() + two.get()).isEqualTo(60);
        assertThat(ids).allSatisfy(id -> assertThat(Marked.onlyRequeueEvent(db, id)).isNotNull());
    }
}
