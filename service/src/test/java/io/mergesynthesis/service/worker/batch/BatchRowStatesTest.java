package io.mergesynthesis.service.worker.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mergesynthesis.service.core.Lane;
import io.mergesynthesis.service.db.OrgSynthesisSettings;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.testing.TestDatabase;
import io.mergesynthesis.synthesis.Ticker;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The states of a batch's row, step by step as the lane moves it: {@code sending} until the create's answer is
 * recorded, {@code in_progress}, {@code ended} once seen ended (the moment kept from the first look), {@code done}
 * for good. The hold on a row is what keeps two replicas from polling one batch: a live hold turns another
 * replica away, a hold let go or run out does not. A hold of no length stands for one whose holder died long ago,
 * so that no test waits for time to pass.
 */
class BatchRowStatesTest {

    private static final Duration HELD = Duration.ofMinutes(10);
    private static final Duration RUN_OUT = Duration.ZERO;
    private static final Duration NO_GRACE = Duration.ZERO;

    private static TestDatabase database;
    private static ScopedTransactions transactions;
    private static Jdbi superuser;
    private BatchRows rows;

    @BeforeAll
    static void start() {
        database = TestDatabase.fresh();
        transactions = database.transactions();
        superuser = database.jdbi();
    }

    @BeforeEach
    void noOtherBatchDue() {
        // Each test sees its own batch alone: the rows of earlier tests are done.
        superuser.useHandle(h -> h.execute("UPDATE llm_batches SET state = 'done'"));
        rows = new BatchRows(transactions);
    }

    @Test
    void aRowWhoseCreateMayStillBeOnItsWayIsLeftToItsSenderUntilTheGraceIsOver() {
        Opened batch = open(3);
        assertThat(rows.takePoll("b", HELD, Duration.ofHours(1))).as("within the grace").isEmpty();
        Optional<BatchRow> taken = rows.takePoll("b", HELD, NO_GRACE);
        assertThat(taken).map(BatchRow::id).contains(batch.id());
        assertThat(taken.get().state()).isEqualTo("sending");
        assertThat(taken.get().providerBatchId()).isNull();
    }

    @Test
    void theProvidersIdIsRecordedOnceAndMovesTheRowInProgress() {
        Opened batch = open(2);
        assertThat(rows.recordSent(batch.org(), batch.id(), "first", Duration.ZERO)).isTrue();
        assertThat(rows.recordSent(batch.org(), batch.id(), "second", Duration.ZERO)).as("a second id").isFalse();
        assertThat(row(batch.id())).containsEntry("provider_batch_id", "first").containsEntry("state", "in_progress");
    }

    @Test
    void aLiveHoldTurnsAnotherReplicaAwayAndAHoldLetGoOrRunOutDoesNot() {
        Opened batch = open(2);
        rows.recordSent(batch.org(), batch.id(), "held", Duration.ZERO);
        BatchRow mine = rows.takePoll("a", HELD, NO_GRACE).orElseThrow();
        assertThat(rows.takePoll("b", HELD, NO_GRACE)).as("held by a").isEmpty();

        rows.pollLater(mine, "a", Duration.ZERO);
        BatchRow theirs = rows.takePoll("b", RUN_OUT, NO_GRACE).orElseThrow();
        assertThat(theirs.id()).isEqualTo(batch.id());
        // b's hold ran out at once, as a dead holder's does: a takes the batch back without b letting go.
        assertThat(rows.takePoll("a", HELD, NO_GRACE)).map(BatchRow::id).contains(batch.id());
        // b, whose hold ran out, can no longer let it go or end it.
        rows.pollLater(theirs, "b", Duration.ZERO);
        assertThat(row(batch.id())).containsEntry("poll_owner", "a");
        assertThat(rows.markEnded(theirs, "b")).isEmpty();
    }

    @Test
    void aPollerRenewsItsHoldWhileItIsItsAndStopsOnceAnotherTookIt() {
        Opened batch = open(2);
        rows.recordSent(batch.org(), batch.id(), "renewed", Duration.ZERO);
        BatchRow mine = rows.takePoll("a", RUN_OUT, NO_GRACE).orElseThrow();
        PollHold hold = new PollHold(rows, mine, "a", HELD, Ticker.SYSTEM);
        hold.renew();
        assertThat(rows.takePoll("b", HELD, NO_GRACE)).as("renewed for ten minutes").isEmpty();

        superuser.useHandle(h -> h.createUpdate("UPDATE llm_batches SET poll_until = now() WHERE id = :id")
                .bind("id", batch.id()).execute());
        assertThat(rows.takePoll("b", HELD, NO_GRACE)).as("run out: b takes it").isPresent();
        assertThatThrownBy(hold::renew).isInstanceOf(PollHold.Lost.class);
    }

    @Test
    void theMomentABatchEndedIsKeptFromTheFirstLookThatSawIt() {
        Opened batch = open(2);
        rows.recordSent(batch.org(), batch.id(), "ends", Duration.ZERO);
        BatchRow held = rows.takePoll("a", HELD, NO_GRACE).orElseThrow();
        Instant first = rows.markEnded(held, "a").orElseThrow();
        Instant again = rows.markEnded(held, "a").orElseThrow();
        assertThat(again).isEqualTo(first);
        assertThat(row(batch.id())).containsEntry("state", "ended");
    }

    @Test
    void aDoneRowIsNeverPolledAgainAndKeepsWhatItCost() {
        Opened batch = open(2);
        rows.recordSent(batch.org(), batch.id(), "done", Duration.ZERO);
        BatchRow held = rows.takePoll("a", HELD, NO_GRACE).orElseThrow();
        rows.markDone(held, "b", new BigDecimal("1.00"));
        assertThat(row(batch.id())).as("only the holder ends it").containsEntry("state", "in_progress");
        rows.markDone(held, "a", new BigDecimal("0.25"));
        assertThat(row(batch.id())).containsEntry("state", "done");
        assertThat((BigDecimal) row(batch.id()).get("cost_usd")).isEqualByComparingTo("0.25");
        assertThat(rows.takePoll("b", HELD, NO_GRACE)).isEmpty();
    }

    @Test
    void aCreateRefusedOutrightPutsItsConflictsBackWithTheirAttemptAndEndsTheRowAtNoCost() {
        Opened batch = open(3);
        assertThat(states(batch.org())).containsOnlyKeys("batched");
        assertThat(rows.closeRefused(batch.org(), batch.id())).isEqualTo(3);
        assertThat(states(batch.org())).containsOnlyKeys("pending");
        List<Integer> attempts = superuser.withHandle(h -> h.createQuery(
                "SELECT attempts FROM policy_conflicts WHERE org_id = :org").bind("org", batch.org())
                .mapTo(Integer.class).list());
        assertThat(attempts).containsOnly(0);
        assertThat(row(batch.id())).containsEntry("state", "done");
        assertThat((BigDecimal) row(batch.id()).get("cost_usd")).isEqualByComparingTo("0");
        assertThat(rows.takePoll("a", HELD, NO_GRACE)).isEmpty();
    }

    @Test
    void aCancelAskedForIsDueOnceUntilTheProviderIsAsked() {
        Opened batch = open(2);
        rows.recordSent(batch.org(), batch.id(), "cancel", Duration.ZERO);
        superuser.useHandle(h -> h.createUpdate(
                "UPDATE llm_batches SET cancel_requested_at = now(), cancel_reason = 'requested' WHERE id = :id")
                .bind("id", batch.id()).execute());
        BatchRow held = rows.takePoll("a", HELD, NO_GRACE).orElseThrow();
        assertThat(held.cancelDue()).isTrue();
        rows.markCancelSent(held, "a");
        rows.pollLater(held, "a", Duration.ZERO);
        assertThat(rows.takePoll("a", HELD, NO_GRACE).orElseThrow().cancelDue()).isFalse();
    }

    private record Opened(UUID id, UUID org) {
    }

    /** An org in lane batch with {@code n} conflicts waiting, all of them opened in one batch. */
    private Opened open(int n) {
        UUID org = UUID.randomUUID();
        transactions.inOrg(org, h -> OrgSynthesisSettings.put(h, org, null, null, null, Lane.BATCH));
        for (int i = 0; i < n; i++) {
            UUID conflict = UUID.randomUUID();
            transactions.inOrg(org, h -> h.createUpdate("""
                            INSERT INTO policy_conflicts (id, org_id, dedup_key, action, target, rules,
                                                          winner_policy_id, detected_at)
                            VALUES (:id, :org, :key, 'tool_call', 'jira.create_issue', '[]', 'p1', now())""")
                    .bind("id", conflict).bind("org", org).bind("key", "state-" + conflict).execute());
        }
        UUID id = UUID.randomUUID();
        List<BatchRows.Batched> batched = rows.underOrgBudget(org,
                h -> BatchRows.open(h, id, org, "standin", "small", n, true));
        assertThat(batched).hasSize(n).allSatisfy(b -> assertThat(b.attempts()).isEqualTo(1));
        return new Opened(id, org);
    }

    private static Map<String, Object> row(UUID id) {
        return superuser.withHandle(h -> h.createQuery("SELECT * FROM llm_batches WHERE id = :id")
                .bind("id", id).mapToMap().one());
    }

    private static Map<String, Long> states(UUID org) {
        return superuser.withHandle(h -> h.createQuery("""
                        SELECT synthesis_state, count(*) AS n FROM policy_conflicts WHERE org_id = :org
                        GROUP BY synthesis_state""").bind("org", org)
                .reduceRows(new java.util.TreeMap<String, Long>(), (map, rowView) -> {
                    map.put(rowView.getColumn("synthesis_state", String.class), rowView.getColumn("n", Long.class));
                    return map;
                }));
    }
}
