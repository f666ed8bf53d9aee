package io.mergesynthesis.service.worker.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

class LeasesAheadTest {

    private static final long MICRO = 1_000;
    private static final long MILLI = 1_000_000;

    @Test
    void noneAreHeldAheadBeforeTheFirstMerge() {
        assertThat(new LeasesAhead(4).count()).isZero();
    }

    @Test
    void asManyAreHeldAheadAsTheWorkersFinishWhileAStoreWaits() {
        LeasesAhead ahead = new LeasesAhead(4);
        // Each merge holds its worker 1 ms and waits 0.5 ms for its store: four workers finish two in that time.
        ahead.merged(MILLI, MILLI / 2, false);
        assertThat(ahead.count()).isEqualTo(2);
    }

    @Test
    void mergesThatTakeLongerThanTheirStoreAreNotHeldAhead() {
        LeasesAhead ahead = new LeasesAhead(4);
        // A provider's round trip of 800 ms against a store of 2 ms: four workers finish none meanwhile.
        ahead.merged(800 * MILLI, 2 * MILLI, false);
        assertThat(ahead.count()).isZero();
    }

    @Test
    void mergesOfMicrosecondsAreHeldAheadUpToTheMost() {
        LeasesAhead ahead = new LeasesAhead(4);
        ahead.merged(50 * MICRO, 2 * MILLI, false);
        assertThat(ahead.count()).isEqualTo(ahead.most()).isEqualTo(4 * LeasesAhead.MOST_PER_WORKER);
    }

    @Test
    void aPaidMergeEndsTheLeasesAheadUntilFreeMergesAreTimedAgain() {
        LeasesAhead ahead = new LeasesAhead(2);
        ahead.merged(50 * MICRO, 2 * MILLI, false);
        assertThat(ahead.count()).isEqualTo(ahead.most());

        ahead.merged(50 * MICRO, 2 * MILLI, true);
        assertThat(ahead.count()).as("after a paid merge, however fast").isZero();

        ahead.merged(50 * MICRO, 2 * MILLI, false);
        assertThat(ahead.count()).isEqualTo(ahead.most());
    }

    @Test
    void oneSlowMergeDoesNotSwingTheCount() {
        LeasesAhead ahead = new LeasesAhead(8);
        for (int i = 0; i < 20; i++) {
            ahead.merged(100 * MICRO, MILLI, false);
        }
        assertThat(ahead.count()).isEqualTo(ahead.most());
        // A pause of the collector makes one merge take 20 ms: the average rises to about 4 ms, and eight
        // workers of that pace still finish one during a store; the average comes back as merges do.
        ahead.merged(20 * MILLI, MILLI, false);
        assertThat(ahead.count()).isEqualTo(1);
        for (int i = 0; i < 30; i++) {
            ahead.merged(100 * MICRO, MILLI, false);
        }
        assertThat(ahead.count()).isEqualTo(ahead.most());
    }

    @Test
    void theCountStaysBetweenNoneAndTheMostAndIsNoneAfterEveryPaidMerge() {
        Random random = new Random(77);
        for (int run = 0; run < 200; run++) {
            int workers = 1 + random.nextInt(64);
            LeasesAhead ahead = new LeasesAhead(workers);
            for (int merge = 0; merge < 50; merge++) {
                long work = random.nextInt(3) == 0 ? 0 : (long) (Math.pow(10, random.nextDouble() * 10));
                long store = (long) (Math.pow(10, random.nextDouble() * 10)) - 1;
                boolean paid = random.nextInt(5) == 0;
                ahead.merged(work, store, paid);
                int count = ahead.count();
                assertThat(count).isBetween(0, workers * LeasesAhead.MOST_PER_WORKER);
                if (paid) {
                    assertThat(count).isZero();
                }
            }
        }
    }

    @Test
    void aPoolHasAtLeastOneWorker() {
        assertThatThrownBy(() -> new LeasesAhead(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one worker");
    }
}
