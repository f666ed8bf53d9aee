package io.mergesynthesis.service.db;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.db.ManagedDataSource;
import io.mergesynthesis.llm.RateLimitHeaders.Kind;
import io.mergesynthesis.llm.RateLimitHeaders.Stated;
import io.mergesynthesis.llm.SharedLimits;
import io.mergesynthesis.llm.SharedLimits.Ending;
import io.mergesynthesis.llm.SharedLimits.Key;
import io.mergesynthesis.llm.SharedLimits.Reservation;
import io.mergesynthesis.service.testing.TestDatabase;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.postgres.PostgresPlugin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Three replicas' stores on one database, each a {@link SharedTokenBuckets} of its own, against a provider's token
 * bucket on a hand-moved clock: the bucket starts at a tenth (someone else spent the rest) and states what is left
 * rounded to the nearest thousand, as Anthropic does. Each replica runs sixteen workers that always have work,
 * reserving as the pacing does before each call and settling when its answer, after a random latency, is read;
 * replicas take turns in a random order at each step and answers are read in a random order. Whatever the
 * interleaving, no call the store let go finds the bucket short, and together they use what it allowed.
 */
class SharedTokenBucketsTest {

    private static final Duration STEP = Duration.ofMillis(10);
    private static final int WORKERS = 16;
    private static final double INPUT = 2000;
    private static final double MAX_TOKENS = 1024;
    private static final double WRITTEN = 180;
    private static final Duration INVOKE_TIMEOUT = Duration.ofSeconds(30);

    private static ManagedDataSource pool;
    private static Jdbi jdbi;

    @BeforeAll
    static void database() {
        // A pool, as the service has: the simulations make a few thousand round trips, and a connection of its own
        // for each would cost more than the statements.
        pool = TestDatabase.fresh().dataSourceFactory().build(new MetricRegistry(), "shared-buckets");
        jdbi = Jdbi.create(pool).installPlugin(new PostgresPlugin());
    }

    @AfterAll
    static void close() throws Exception {
        pool.stop();
    }

    /** A clock the test moves by hand. */
    private static final class HandClock extends Clock {
        private volatile Instant now = Instant.parse("2026-11-20T12:00:00Z");

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    /** The provider's bucket: refills at its limit a minute, admits a call only when it holds the call's charge. */
    private static final class ProviderBucket {
        private final HandClock clock;
        private final long limit;
        private double level;
        private Instant at;

        ProviderBucket(HandClock clock, long limit, double startingShare) {
            this.clock = clock;
            this.limit = limit;
            this.level = limit * startingShare;
            this.at = clock.instant();
        }

        double perSecond() {
            return limit / 60.0;
        }

        boolean take(double tokens) {
            refill();
            if (level < Math.min(tokens, limit)) {
                return false;
            }
            level -= tokens;
            return true;
        }

        void giveBack(double tokens) {
            refill();
            level = Math.min(limit, level + tokens);
        }

        Stated stated() {
            refill();
            long remaining = Math.round(Math.floor(level) / 1000.0) * 1000;
            Instant full = clock.instant().plusNanos((long) Math.ceil((limit - level) / perSecond() * 1e9));
            Instant stated = full.truncatedTo(ChronoUnit.SECONDS);
            return new Stated(OptionalLong.of(limit), remaining,
                    stated.isBefore(full) ? stated.plusSeconds(1) : stated);
        }

        private void refill() {
            Instant now = clock.instant();
            level = Math.min(limit, level + perSecond() * Duration.between(at, now).toNanos() / 1e9);
            at = now;
        }
    }

    private record Sent(int replica, Reservation reservation, Instant answerAt, Stated stated, boolean admitted) {
    }

    private record Run(double used, double allowed, int calls, int refused) {
        double share() {
            return used / allowed;
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%.3f of the limit used (%.0f of %.0f), %d calls, %d refused",
                    share(), used, allowed, calls, refused);
        }
    }

    private Run run(Kind kind, long limit, Duration lasting, int replicas, Random random, Key key) {
        HandClock clock = new HandClock();
        ProviderBucket bucket = new ProviderBucket(clock, limit, 0.1);
        List<SharedLimits> stores = new ArrayList<>();
        List<Instant> nextAsk = new ArrayList<>();
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < replicas; i++) {
            stores.add(new SharedTokenBuckets(jdbi, INVOKE_TIMEOUT, clock));
            nextAsk.add(Instant.MIN);
            order.add(i);
        }
        double held = kind == Kind.OUTPUT_TOKENS ? MAX_TOKENS : INPUT;
        double startLevel = limit * 0.1;
        Instant end = clock.instant().plus(lasting);
        List<Sent> inFlight = new ArrayList<>();
        double used = 0;
        int calls = 0;
        int refused = 0;
        while (clock.instant().isBefore(end)) {
            List<Sent> due = new ArrayList<>(inFlight.stream().filter(s -> !s.answerAt().isAfter(clock.instant()))
                    .toList());
            inFlight.removeAll(due);
            Collections.shuffle(due, random);
            for (Sent sent : due) {
                if (sent.admitted() && kind == Kind.OUTPUT_TOKENS) {
                    bucket.giveBack(MAX_TOKENS - WRITTEN);
                }
                double spent = kind == Kind.OUTPUT_TOKENS ? WRITTEN : INPUT;
                double countedAtStart = !sent.admitted() ? 0 : held;
                Map<Kind, Ending> endings = new EnumMap<>(Kind.class);
                endings.put(kind, new Ending(held, sent.admitted() ? held - spent : held, held - countedAtStart,
                        Optional.of(sent.stated()), true, sent.reservation().held().get(kind)));
                stores.get(sent.replica()).settle(key, endings);
                nextAsk.set(sent.replica(), Instant.MIN);
            }
            Collections.shuffle(order, random);
            for (int r : order) {
                while (!clock.instant().isBefore(nextAsk.get(r)) && inFlight.stream()
                        .filter(s -> s.replica() == r).count() < WORKERS) {
                    Reservation reservation = stores.get(r).reserve(key, Map.of(kind, held));
                    assertThat(reservation.shared()).as("the store answered").isTrue();
                    if (!reservation.granted()) {
                        nextAsk.set(r, clock.instant().plus(reservation.until()));
                        break;
                    }
                    calls++;
                    boolean admitted = bucket.take(held);
                    if (admitted) {
                        used += kind == Kind.OUTPUT_TOKENS ? WRITTEN : INPUT;
                    } else {
                        refused++;
                    }
                    inFlight.add(new Sent(r, reservation,
                            clock.instant().plus(Duration.ofMillis(150 + random.nextInt(150))), bucket.stated(),
                            admitted));
                }
            }
            clock.advance(untilNextEvent(clock.instant(), inFlight, nextAsk));
        }
        double allowed = startLevel + bucket.perSecond() * lasting.toNanos() / 1e9;
        return new Run(used, allowed, calls, refused);
    }

    /**
     * How far to move the clock: to the first answer due or the first moment a replica with a free worker may ask
     * again, whichever comes first, and at least {@link #STEP}. Nothing happens in between, so the moments when
     * every replica waits cost the simulation no round trips.
     */
    /**
     * A first call to {@code key} holding 1,024 output tokens, answered having written 150 of them, under a limit
     * of 8,000 a minute that states {@code remaining} left once the call's tokens were held.
     */
    private static void firstCallAnswered(SharedLimits replica, Key key, long remaining, HandClock clock) {
        Reservation first = replica.reserve(key, Map.of(Kind.OUTPUT_TOKENS, 1024.0));
        Stated stated = new Stated(OptionalLong.of(8000), remaining, clock.instant().plusSeconds(60));
        replica.settle(key, Map.of(Kind.OUTPUT_TOKENS, new Ending(1024, 874, 0, Optional.of(stated), true,
                first.held().get(Kind.OUTPUT_TOKENS))));
    }

    private static Duration untilNextEvent(Instant now, List<Sent> inFlight, List<Instant> nextAsk) {
        Instant next = now.plus(Duration.ofHours(1));
        for (Sent sent : inFlight) {
            next = sent.answerAt().isBefore(next) ? sent.answerAt() : next;
        }
        for (int r = 0; r < nextAsk.size(); r++) {
            int replica = r;
            boolean freeWorker = inFlight.stream().filter(s -> s.replica() == replica).count() < WORKERS;
            if (freeWorker && nextAsk.get(r).isBefore(next)) {
                next = nextAsk.get(r);
            }
        }
        Duration by = Duration.between(now, next);
        return by.compareTo(STEP) < 0 ? STEP : by;
    }

    @Test
    void threeReplicasOnOneDatabaseNeverOverdrawAPartlySpentRoundedBucketWhateverTheInterleaving() {
        for (int seed = 1; seed <= 3; seed++) {
            Run run = run(Kind.INPUT_TOKENS, 300_000, Duration.ofSeconds(60), 3, new Random(seed),
                    new Key("anthropic", "input-" + seed));

            System.out.println("input tokens, three replicas sharing the database, seed " + seed + ": " + run);
            assertThat(run.refused()).as("seed " + seed + ": " + run).isZero();
            assertThat(run.share()).as("seed " + seed + ": " + run).isGreaterThanOrEqualTo(0.95);
        }
    }

    @Test
    void atTheFirstOutputTierOnlyTheFirstCallWhichTheBucketCannotHoldIsRefused() {
        Run run = run(Kind.OUTPUT_TOKENS, 8000, Duration.ofMinutes(3), 3, new Random(11),
                new Key("anthropic", "output"));

        System.out.println("output tokens at 8,000 a minute, three replicas sharing the database: " + run);
        assertThat(run.refused()).as(run.toString()).isLessThanOrEqualTo(1);
        assertThat(run.share()).as(run.toString()).isGreaterThanOrEqualTo(0.95);
    }

    @Test
    void theFirstCallGoesAloneAndAStatementThatSaysLessThanTheRowsCorrectsThem() {
        HandClock clock = new HandClock();
        SharedLimits one = new SharedTokenBuckets(jdbi, INVOKE_TIMEOUT, clock);
        SharedLimits two = new SharedTokenBuckets(jdbi, INVOKE_TIMEOUT, clock);
        Key key = new Key("anthropic", "first-call");

        Reservation first = one.reserve(key, Map.of(Kind.INPUT_TOKENS, 2000.0));
        assertThat(first.granted()).isTrue();
        assertThat(first.held().get(Kind.INPUT_TOKENS).drawn()).as("nothing known yet: nothing drawn").isFalse();
        Reservation meanwhile = two.reserve(key, Map.of(Kind.INPUT_TOKENS, 2000.0));
        assertThat(meanwhile.granted()).as("the others wait for the first answer").isFalse();

        // 30,000 a minute, 20,000 left (rounded) after the first call's 2,000.
        Stated stated = new Stated(OptionalLong.of(30_000), 20_000, clock.instant().plusSeconds(20));
        one.settle(key, Map.of(Kind.INPUT_TOKENS, new Ending(2000, 0, 0, Optional.of(stated), true,
                first.held().get(Kind.INPUT_TOKENS))));
        Reservation second = two.reserve(key, Map.of(Kind.INPUT_TOKENS, 2000.0));
        assertThat(second.granted()).isTrue();
        assertThat(second.held().get(Kind.INPUT_TOKENS).levelAfter()).as("19,500 at least, less 2,000")
                .isEqualTo(17_500.0);

        // Someone outside the deployment spent 10,000 meanwhile: the answer says 8,000 where 17,500 was kept.
        Stated less = new Stated(OptionalLong.of(30_000), 8000, clock.instant().plusSeconds(40));
        two.settle(key, Map.of(Kind.INPUT_TOKENS, new Ending(2000, 0, 0, Optional.of(less), true,
                second.held().get(Kind.INPUT_TOKENS))));
        Reservation third = one.reserve(key, Map.of(Kind.INPUT_TOKENS, 2000.0));
        assertThat(third.held().get(Kind.INPUT_TOKENS).levelAfter()).as("8,500 at most, less 2,000")
                .isEqualTo(6500.0);
    }

    @Test
    void aCallThatWasTakenLeavesWhatItWasCountedForTheReplicasThatHaveNoCountOfTheirOwn() {
        HandClock clock = new HandClock();
        SharedLimits one = new SharedTokenBuckets(jdbi, INVOKE_TIMEOUT, clock);
        SharedLimits two = new SharedTokenBuckets(jdbi, INVOKE_TIMEOUT, clock);
        Key key = new Key("anthropic", "counted");
        assertThat(two.lastCounted(key)).as("no call taken yet").isEmpty();

        Reservation first = one.reserve(key, Map.of(Kind.INPUT_TOKENS, 1400.0, Kind.OUTPUT_TOKENS, 1024.0));
        // The provider counted 5,000 input tokens where the call held 1,400 on a guess, and held its 1,024 until
        // it wrote 180.
        Stated input = new Stated(OptionalLong.of(30_000), 20_000, clock.instant().plusSeconds(20));
        Stated output = new Stated(OptionalLong.of(8_000), 7_000, clock.instant().plusSeconds(10));
        one.settle(key, Map.of(
                Kind.INPUT_TOKENS, new Ending(1400, 1400 - 5000, 1400 - 5000, Optional.of(input), true,
                        first.held().get(Kind.INPUT_TOKENS)),
                Kind.OUTPUT_TOKENS, new Ending(1024, 1024 - 180, 0, Optional.of(output), true,
                        first.held().get(Kind.OUTPUT_TOKENS))));
        assertThat(two.lastCounted(key)).as("what the provider counted at the call's start")
                .containsOnly(Map.entry(Kind.INPUT_TOKENS, 5000.0), Map.entry(Kind.OUTPUT_TOKENS, 1024.0));

        // A refused call was counted nothing: the count of the last call taken stands.
        Reservation second = two.reserve(key, Map.of(Kind.INPUT_TOKENS, 5000.0, Kind.OUTPUT_TOKENS, 1024.0));
        assertThat(second.granted()).isTrue();
        two.settle(key, Map.of(
                Kind.INPUT_TOKENS, new Ending(5000, 5000, 5000, Optional.of(input), true,
                        second.held().get(Kind.INPUT_TOKENS)),
                Kind.OUTPUT_TOKENS, new Ending(1024, 1024, 1024, Optional.of(output), true,
                        second.held().get(Kind.OUTPUT_TOKENS))));
        assertThat(one.lastCounted(key)).containsEntry(Kind.INPUT_TOKENS, 5000.0);
        assertThat(one.lastCounted(new Key("anthropic", "another-model"))).isEmpty();
    }

    @Test
    void aCallThatFindsTooLittleWhileCallsInFlightHoldEnoughIsAskedBackShortlyNotAfterTheRefill() {
        HandClock clock = new HandClock();
        SharedLimits one = new SharedTokenBuckets(jdbi, INVOKE_TIMEOUT, clock);
        Key key = new Key("anthropic", "in-flight");
        // 8,000 a minute; 150 left once the first call's 1,024 were held, and 874 of them back as it ended.
        firstCallAnswered(one, key, 150, clock);
        Reservation second = one.reserve(key, Map.of(Kind.OUTPUT_TOKENS, 1024.0));
        assertThat(second.granted()).as("the 1,024 in the bucket").isTrue();

        Reservation third = one.reserve(key, Map.of(Kind.OUTPUT_TOKENS, 1024.0));
        assertThat(third.granted()).isFalse();
        assertThat(third.until()).as("the call in flight holds 1,024: asked back shortly, not after 7.7 s of refill")
                .isLessThanOrEqualTo(Duration.ofMillis(50));

        one.settle(key, Map.of(Kind.OUTPUT_TOKENS, new Ending(1024, 874, 0, Optional.empty(), true,
                second.held().get(Kind.OUTPUT_TOKENS))));
        Reservation larger = one.reserve(key, Map.of(Kind.OUTPUT_TOKENS, 2000.0));
        assertThat(larger.until()).as("nothing in flight: 1,126 missing at 133 a second")
                .isBetween(Duration.ofMillis(8400), Duration.ofMillis(8500));
    }

    @Test
    void theHoldsOfAReplicaThatDiedEndOnceItsCallsSurelyHave() {
        HandClock clock = new HandClock();
        Duration timeout = Duration.ofSeconds(5);
        SharedLimits died = new SharedTokenBuckets(jdbi, timeout, clock);
        SharedLimits alive = new SharedTokenBuckets(jdbi, timeout, clock);
        Key key = new Key("anthropic", "died-holding");
        // 8,000 a minute; 1,000 left (rounded: 500 at least) once the first call's 1,024 were held, 874 back.
        firstCallAnswered(alive, key, 1000, clock);
        // Another replica reserves a call and dies before it ends: 350 left.
        assertThat(died.reserve(key, Map.of(Kind.OUTPUT_TOKENS, 1024.0)).granted()).isTrue();

        Reservation meanwhile = alive.reserve(key, Map.of(Kind.OUTPUT_TOKENS, 1024.0));
        assertThat(meanwhile.granted()).isFalse();
        assertThat(meanwhile.until()).as("its call may still end and give back most of what it holds")
                .isLessThanOrEqualTo(Duration.ofMillis(50));

        // Twice the invoke timeout later every call it reserved has ended, answered or not; 1,685 in the bucket.
        clock.advance(timeout.multipliedBy(2).plusMillis(10));
        Reservation larger = alive.reserve(key, Map.of(Kind.OUTPUT_TOKENS, 2000.0));
        assertThat(larger.granted()).isFalse();
        assertThat(larger.until()).as("the dead replica's hold no longer counts: 315 missing at 133 a second")
                .isBetween(Duration.ofMillis(2300), Duration.ofMillis(2400));
        Reservation next = alive.reserve(key, Map.of(Kind.OUTPUT_TOKENS, 1024.0));
        assertThat(next.granted()).isTrue();
        assertThat(next.held().get(Kind.OUTPUT_TOKENS).inFlightBefore()).as("nothing in flight").isZero();
    }
}
