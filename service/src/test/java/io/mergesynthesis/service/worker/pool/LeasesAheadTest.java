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
        assertThat(new LeasesAhead(4, 3).count()).isZero();
    }

    @Test
    void asManyAreHeldAheadAsTheWorkersFinishWhileAStoreWaits() {
        LeasesAhead ahead = new LeasesAhead(4, 3);
        // Each merge holds its worker 0.5 ms and waits 1.25 ms for its store: four workers finish ten meanwhile.
        merged(ahead, MILLI / 2, MILLI + MILLI / 4, false);
        assertThat(ahead.count()).isEqualTo(10);
    }

    @Test
    void mergesThatTakeLongerThanTheirStoreAreNotHeldAhead() {
        LeasesAhead ahead = new LeasesAhead(4, 3);
        // 50 ms against a store of 13 ms: four workers would finish one meanwhile, but each is busy most of the
        // time already.
        merged(ahead, 50 * MILLI, 13 * MILLI, false);
        assertThat(ahead.count()).isZero();
        // A provider's round trip of 800 ms against a store of 2 ms.
        merged(ahead, 800 * MILLI, 2 * MILLI, false);
        assertThat(ahead.count()).isZero();
    }

    @Test
    void noneAreHeldAheadWhenTheSettingSaysNone() {
        LeasesAhead ahead = new LeasesAhead(4, 0);
        merged(ahead, 50 * MICRO, 2 * MILLI, false);
        assertThat(ahead.most()).isZero();
        assertThat(ahead.count()).isZero();
    }

    @Test
    void mergesOfMicrosecondsAreHeldAheadUpToTheMost() {
        LeasesAhead ahead = new LeasesAhead(4, 3);
        merged(ahead, 50 * MICRO, 2 * MILLI, false);
        assertThat(ahead.count()).isEqualTo(ahead.most()).isEqualTo(12);
    }

    @Test
    void aPaidMergeEndsTheLeasesAheadUntilFreeMergesAreTimedAgain() {
        LeasesAhead ahead = new LeasesAhead(2, 3);
        merged(ahead, 50 * MICRO, 2 * MILLI, false);
        assertThat(ahead.count()).isEqualTo(ahead.most());

        merged(ahead, 50 * MICRO, 2 * MILLI, true);
        assertThat(ahead.count()).as("after a paid merge, however fast").isZero();

        merged(ahead, 50 * MICRO, 2 * MILLI, false);
        assertThat(ahead.count()).isEqualTo(ahead.most());
    }

    @Test
    void oneSlowMergeDoesNotSwingTheCount() {
        LeasesAhead ahead = new LeasesAhead(4, 3);
        for (int i = 0; i < 20; i++) {
            merged(ahead, 100 * MICRO, 10 * MILLI, false);
        }
        assertThat(ahead.count()).isEqualTo(ahead.most());
        // A pause of the collector makes one merge take 20 ms: the average rises to about 4 ms, still less than
        // a store, and four workers of that pace finish nine during one; the average comes back as merges do.
        merged(ahead, 20 * MILLI, 10 * MILLI, false);
        assertThat(ahead.count()).isEqualTo(9);
        for (int i = 0; i < 30; i++) {
            merged(ahead, 100 * MICRO, 10 * MILLI, false);
        }
        assertThat(ahead.count()).isEqualTo(ahead.most());
    }

    @Test
    void theCountStaysBetweenNoneAndTheMostAndIsNoneAfterAPaidMergeOrWhileMergesOutlastTheirStores() {
        Random random = new Random(77);
        for (int run = 0; run < 200; run++) {
            int workers = 1 + random.nextInt(64);
            int perWorker = random.nextInt(17);
            LeasesAhead ahead = new LeasesAhead(workers, perWorker);
            // Whether every merge timed since the last paid one (or the start) took at least its store.
            boolean eachOutlastedItsStore = true;
            for (int merge = 0; merge < 50; merge++) {
                long work = random.nextInt(3) == 0 ? 0 : (long) (Math.pow(10, random.nextDouble() * 10));
                long store = (long) (Math.pow(10, random.nextDouble() * 10)) - 1;
                boolean paid = random.nextInt(5) == 0;
                merged(ahead, work, store, paid);
                eachOutlastedItsStore = paid || eachOutlastedItsStore && work >= store;
                int count = ahead.count();
                assertThat(count).isBetween(0, workers * perWorker);
                if (paid || eachOutlastedItsStore) {
                    assertThat(count).as("run %d, merge %d", run, merge).isZero();
                }
            }
        }
    }

    @Test
    void aMergeFarSlowerThanTheLastEndsTheLeadAsItIsMadeBeforeItsStore() {
        LeasesAhead ahead = new LeasesAhead(4, 3);
        for (int i = 0; i < 10; i++) {
            merged(ahead, 50 * MICRO, MILLI, false);
        }
        assertThat(ahead.count()).isEqualTo(ahead.most());
        // A merge that waited 200 ms: told as it is handed in, its store not yet begun.
        ahead.made(200 * MILLI, false);
        assertThat(ahead.count()).isZero();
    }

    @Test
    void aPoolHasAtLeastOneWorker() {
        assertThatThrownBy(() -> new LeasesAhead(0, 3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one worker");
    }

    /** A merge as the runner tells of it: made and handed in, then stored. */
    private static void merged(LeasesAhead ahead, long workNanos, long storeNanos, boolean paid) {
        ahead.made(workNanos, paid);
        ahead.stored(storeNanos);
    }
}
