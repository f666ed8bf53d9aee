package io.mergesynthesis.service.worker.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.db.OneTripBatch;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.worker.WorkerFixture;
import io.mergesynthesis.synthesis.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A pool's picture of the fair order (ADR 0069): what a walk finds, how the picture follows the pool's own claims
 * so that the orgs it offers move on, and when it must be walked again, on a hand-moved ticker.
 */
class WaitingOrgsTest {

    private static WorkerFixture fixture;
    private static ScopedTransactions transactions;
    private final AtomicLong now = new AtomicLong();
    private final Ticker ticker = now::get;

    @BeforeAll
    static void database() {
        fixture = new WorkerFixture();
        transactions = fixture.transactionsOnOwnPool("picture", 2);
    }

    @AfterAll
    static void close() throws Exception {
        fixture.close();
    }

    @BeforeEach
    void empty() {
        fixture.admin.useHandle(h -> h.execute("TRUNCATE policy_conflicts CASCADE"));
    }

    @Test
    void aClaimOnThePictureMovesTheOrgsItOffersOnAsTheyAreServed() {
        UUID oldest = org(3_000);
        UUID middle = org(2_000);
        UUID newest = org(1_000);
        WaitingOrgs picture = walked();
        assertThat(picture.candidates(1, ConflictLeases.NO_ROUTE_HELD))
                .as("never served, level with each other: oldest first")
                .isEqualTo(oldest + "," + middle + "," + newest);

        List<Lease> first = claim(picture, 1);
        assertThat(first).extracting(Lease::orgId).containsExactly(oldest);
        assertThat(picture.candidates(1, ConflictLeases.NO_ROUTE_HELD))
                .as("the org just served goes behind the others")
                .isEqualTo(middle + "," + newest + "," + oldest);

        assertThat(claim(picture, 1)).extracting(Lease::orgId).containsExactly(middle);
        assertThat(claim(picture, 1)).extracting(Lease::orgId).containsExactly(newest);
        assertThat(claim(picture, 1)).as("a second round, oldest first again").extracting(Lease::orgId)
                .containsExactly(oldest);
    }

    @Test
    void aPictureIsWalkedAgainWhenItIsOldOrAClaimOnItCameBackShort() {
        org(1_000);
        WaitingOrgs picture = walked();
        assertThat(picture.due()).isFalse();
        now.addAndGet(WaitingOrgs.FRESH_FOR.toNanos());
        assertThat(picture.due()).as("older than it stands").isTrue();

        picture = walked();
        assertThat(claim(picture, 2)).hasSize(2);
        assertThat(picture.due()).as("a full claim leaves it standing").isFalse();
        assertThat(claim(picture, 2)).hasSize(1);
        assertThat(picture.due()).as("a short claim may have met orgs with nothing left").isTrue();
    }

    @Test
    void aNewOrgIsOfferedFromTheNextWalkAndLeavesOutHeldRoutes() {
        UUID busy = org(1_000);
        WaitingOrgs picture = walked();
        claim(picture, 2);
        UUID newcomer = org(0);
        fixture.admin.useHandle(h -> h.createUpdate(
                        "INSERT INTO org_synthesis_settings (org_id, model) VALUES (:org, 'anthropic/claude')")
                .bind("org", busy).execute());
        assertThat(picture.candidates(1, ConflictLeases.NO_ROUTE_HELD)).as("not walked yet")
                .doesNotContain(newcomer.toString());

        WaitingOrgs again = walked();
        assertThat(again.candidates(1, ConflictLeases.NO_ROUTE_HELD))
                .as("level with the busy org's last, and so first").startsWith(newcomer.toString());
        assertThat(again.candidates(1, ",anthropic,")).isEqualTo(newcomer.toString());
    }

    @Test
    void theWalkTellsWhenTheFirstRowInABackoffComesDueAlsoInAnOrgWithRowsDue() {
        UUID busy = org(1_000);
        assertThat(walked().nextPendingDueIn()).as("nothing in a backoff").isEmpty();

        backOff(busy, 1, 20);
        UUID resting = org(0);
        backOff(resting, 3, 30);
        WaitingOrgs picture = walked();
        assertThat(picture.candidates(1, ConflictLeases.NO_ROUTE_HELD))
                .as("an org whose rows all wait out a backoff is not offered").isEqualTo(busy.toString());
        assertThat(picture.nextPendingDueIn()).as("the busy org's row, sooner than the resting org's").get()
                .satisfies(due -> assertThat(due).isBetween(Duration.ofSeconds(15), Duration.ofSeconds(20)));

        now.addAndGet(Duration.ofSeconds(40).toNanos());
        assertThat(picture.nextPendingDueIn()).as("passed, by the hand-moved clock").contains(Duration.ZERO);
    }

    /** Puts the {@code count} newest pending rows of {@code org} in a backoff that ends in {@code seconds}. */
    private static void backOff(UUID org, int count, int seconds) {
        fixture.admin.useHandle(h -> h.createUpdate("""
                        UPDATE policy_conflicts SET not_before = now() + :seconds * interval '1 second'
                        WHERE id IN (SELECT id FROM policy_conflicts WHERE org_id = :org
                                     ORDER BY not_before DESC LIMIT :count)""")
                .bind("org", org).bind("count", count).bind("seconds", seconds).execute());
    }

    private WaitingOrgs walked() {
        WaitingOrgs picture = new WaitingOrgs(ticker);
        OneTripBatch walk = OneTripBatch.crossTenant();
        picture.walkInto(walk);
        walk.run(transactions);
        return picture;
    }

    private static List<Lease> claim(WaitingOrgs picture, int limit) {
        OneTripBatch trip = OneTripBatch.crossTenant();
        OneTripBatch.Result<Map<Lease, Double>> claimed = ConflictLeases.claim(trip, "picture", limit,
                Duration.ofSeconds(60), Ticker.SYSTEM, ClaimRoutes.NONE, picture);
        trip.run(transactions);
        picture.claimed(claimed.get(), limit);
        return List.copyOf(claimed.get().keySet());
    }

    /** A new org with three pending conflicts, the oldest {@code ageSeconds} old. */
    private static UUID org(int ageSeconds) {
        UUID org = UUID.randomUUID();
        fixture.admin.useHandle(h -> h.createUpdate("""
                        INSERT INTO policy_conflicts
                            (id, org_id, dedup_key, action, target, rules, winner_policy_id, detected_at, not_before)
                        SELECT gen_random_uuid(), :org, 'picture-' || i, 'tool_call', 'jira.read', '[]', 'p1', now(),
                               now() - :age * interval '1 second' + i * interval '1 millisecond'
                        FROM generate_series(1, 3) AS i""")
                .bind("org", org).bind("age", ageSeconds).execute());
        return org;
    }
}
