package io.mergesynthesis.service.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.operator.Replicas;
import io.mergesynthesis.service.testing.HandClock;
import io.mergesynthesis.service.testing.TestDatabase;
import io.mergesynthesis.synthesis.CircuitStatus;
import io.mergesynthesis.synthesis.ProviderState;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The heartbeat table driven by a hand-moved clock: what a beat records, when a silent replica reads as gone, that
 * an orderly stop marks the row, and that a row silent for ten of its intervals is deleted by another replica's
 * beat and not before.
 */
class HeartbeatWriterTest {

    static final Duration INTERVAL = Duration.ofSeconds(5);
    static TestDatabase database;

    @BeforeAll
    static void database() {
        database = TestDatabase.fresh();
    }

    @Test
    void aBeatRecordsTheReplicaItsWorkersAndEachProvidersState() {
        HandClock clock = new HandClock(Instant.parse("2026-11-25T10:00:00Z"));
        HeartbeatWriter writer = writer("replica-a", clock, List.of(
                new ProviderState(new CircuitStatus("anthropic", true, "open after 5 failures"), 2, 0),
                new ProviderState(new CircuitStatus("openai", false, "closed"), 12, 3.25)));

        writer.beat();
        clock.advance(INTERVAL);
        writer.beat();

        Replicas.Replica replica = find("replica-a", clock.instant()).orElseThrow();
        assertThat(replica.state()).isEqualTo(Replicas.State.LIVE);
        assertThat(replica.beat().beatAt()).isEqualTo(clock.instant());
        assertThat(replica.beat().startedAt()).isEqualTo(Instant.parse("2026-11-25T10:00:00Z"));
        assertThat(replica.beat().interval()).isEqualTo(INTERVAL);
        assertThat(replica.beat().workers()).isEqualTo(6);
        assertThat(replica.beat().inFlight()).isEqualTo(4);
        assertThat(replica.beat().lastClaimAt()).isEqualTo(Instant.parse("2026-11-25T09:59:58Z"));
        assertThat(replica.beat().providers()).extracting(p -> p.name() + " " + p.circuitOpen() + " "
                        + p.concurrencyLimit() + " " + p.requestsPerSecond())
                .containsExactlyInAnyOrder("anthropic true 2 0.0", "openai false 12 3.25");
    }

    @Test
    void aSilentReplicaReadsAsGoneAfterThreeIntervalsAndIsDeletedAfterTen() {
        HandClock clock = new HandClock(Instant.parse("2026-11-25T11:00:00Z"));
        HeartbeatWriter silent = writer("replica-silent", clock, List.of());
        HeartbeatWriter other = writer("replica-other", clock, List.of());
        silent.beat();

        // Every half interval, the other replica beats; the silent one's state follows the time since its beat.
        for (int halves = 1; halves <= 20; halves++) {
            clock.advance(INTERVAL.dividedBy(2));
            other.beat();
            Optional<Replicas.Replica> seen = find("replica-silent", clock.instant());
            Duration silence = INTERVAL.dividedBy(2).multipliedBy(halves);
            if (silence.compareTo(INTERVAL.multipliedBy(10)) > 0) {
                assertThat(seen).as("after %s", silence).isEmpty();
            } else {
                assertThat(seen).as("after %s", silence).isPresent();
                assertThat(seen.get().state()).as("after %s", silence).isEqualTo(
                        silence.compareTo(INTERVAL.multipliedBy(3)) > 0 ? Replicas.State.GONE : Replicas.State.LIVE);
            }
        }
        clock.advance(INTERVAL);
        other.beat();
        assertThat(find("replica-silent", clock.instant())).isEmpty();
        assertThat(find("replica-other", clock.instant())).isPresent();
    }

    @Test
    void anOrderlyStopMarksTheRowStopped() throws Exception {
        HandClock clock = new HandClock(Instant.parse("2026-11-25T12:00:00Z"));
        HeartbeatWriter writer = writer("replica-stopping", clock, List.of());
        writer.beat();
        clock.advance(Duration.ofSeconds(2));

        writer.stop();

        Replicas.Replica replica = find("replica-stopping", clock.instant()).orElseThrow();
        assertThat(replica.state()).isEqualTo(Replicas.State.STOPPED);
        assertThat(replica.beat().stoppedAt()).isEqualTo(clock.instant());
    }

    private static HeartbeatWriter writer(String id, HandClock clock, List<ProviderState> providers) {
        ReplicaReadings readings = new ReplicaReadings() {
            @Override
            public String replicaId() {
                return id;
            }

            @Override
            public int workers() {
                return 6;
            }

            @Override
            public int inFlight() {
                return 4;
            }

            @Override
            public Instant lastClaim() {
                return Instant.parse("2026-11-25T09:59:58Z");
            }

            @Override
            public List<ProviderState> providers() {
                return providers;
            }
        };
        return new HeartbeatWriter(database.transactions(), readings, "host-" + id, "test", INTERVAL, clock);
    }

    private static Optional<Replicas.Replica> find(String id, Instant now) {
        return new Replicas(database.transactions()).list(now).stream()
                .filter(r -> r.beat().replicaId().equals(id)).findFirst();
    }
}
