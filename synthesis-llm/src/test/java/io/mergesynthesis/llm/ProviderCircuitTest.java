package io.mergesynthesis.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.mergesynthesis.llm.ProviderCircuit.HeldBack;
import io.mergesynthesis.llm.ProviderCircuit.State;
import io.mergesynthesis.llm.ProviderCircuit.Ticket;
import io.mergesynthesis.synthesis.SynthesisDeferred.Cause;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** How the circuit tells a provider that is down from a conflict that fails, on a clock the test moves. */
class ProviderCircuitTest {

    private final TestClock clock = new TestClock();
    private final ProviderCircuit circuit = new ProviderCircuit("anthropic", new CircuitSettings(), clock);

    private ProviderCircuit.Verdict failOnce(UUID conflict) throws HeldBack {
        return circuit.failed(circuit.admit(), conflict, "HTTP 503");
    }

    private void openIt() throws HeldBack {
        failOnce(UUID.randomUUID());
        assertThat(circuit.state()).isEqualTo(State.OPEN);
    }

    @Test
    void theFirstOutageLikeFailureOpensTheCircuitAndCountsNothing() throws Exception {
        ProviderCircuit.Verdict verdict = failOnce(UUID.randomUUID());

        assertThat(verdict.counts()).isFalse();
        assertThat(verdict.deferral()).isEqualTo(Cause.PROVIDER_OUTAGE);
        assertThat(verdict.retryAfter()).isEqualTo(Duration.ofSeconds(1));
        assertThat(circuit.state()).isEqualTo(State.OPEN);
        assertThat(circuit.openings()).isEqualTo(1);
        assertThat(circuit.status().open()).isTrue();
        assertThat(circuit.status().detail()).contains("down", "HTTP 503", "next probe in 1000 ms");
    }

    @Test
    void aConflictAloneDuringALongOutageNeverCountsAndIsLetThroughOnTheFirstAnswer() throws Exception {
        UUID alone = UUID.randomUUID();
        Duration wait = Duration.ZERO;
        Duration down = Duration.ZERO;
        // Far longer than three attempts with their backoff: the conflict comes back whenever the circuit says.
        while (down.compareTo(Duration.ofMinutes(10)) < 0) {
            clock.advance(wait);
            down = down.plus(wait);
            ProviderCircuit.Verdict verdict = circuit.failed(circuit.admit(), alone, "connection refused");
            assertThat(verdict.counts()).as("failure after %s of outage", down).isFalse();
            wait = verdict.retryAfter();
        }
        clock.advance(wait);
        Ticket probe = circuit.admit();
        circuit.answered(probe);

        assertThat(probe.probe()).isTrue();
        assertThat(circuit.state()).isEqualTo(State.CLOSED);
        assertThat(circuit.openings()).isEqualTo(1);
    }

    @Test
    void aConflictThatFailsWhileOthersAreAnsweredCountsFromItsSecondFailure() throws Exception {
        UUID lonely = UUID.randomUUID();

        ProviderCircuit.Verdict first = failOnce(lonely);
        clock.advance(first.retryAfter());
        circuit.answered(circuit.admit()); // another conflict's call is the probe, and is answered
        ProviderCircuit.Verdict second = failOnce(lonely);
        circuit.answered(circuit.admit());
        ProviderCircuit.Verdict third = failOnce(lonely);

        assertThat(first.counts()).isFalse();
        assertThat(second.counts()).isTrue();
        assertThat(third.counts()).isTrue();
        assertThat(circuit.state()).isEqualTo(State.CLOSED);
        assertThat(circuit.openings()).as("only the first, ambiguous failure opened it").isEqualTo(1);
    }

    @Test
    void aConflictThatFailedInThisOutageLeavesTheProbeToAnotherThatWaitsButIsNotStarved() throws Exception {
        UUID choking = UUID.randomUUID();
        UUID waiting = UUID.randomUUID();
        failOnce(choking);
        catchThrowableOfType(() -> circuit.admit(waiting), HeldBack.class);
        clock.advance(Duration.ofSeconds(1));

        HeldBack stepAside = catchThrowableOfType(() -> circuit.admit(choking), HeldBack.class);
        Ticket probe = circuit.admit(waiting);
        circuit.failed(probe, waiting, "HTTP 503");
        clock.advance(Duration.ofSeconds(2));

        assertThat(stepAside).as("the other conflict probes first").isNotNull();
        assertThat(stepAside.cause()).as("without pausing claims").isEqualTo(Cause.OUTAGE_SUSPECTED);
        assertThat(probe.probe()).isTrue();
        assertThat(circuit.admit(choking).probe()).as("with nobody else waiting, it probes").isTrue();
    }

    @Test
    void aCountedFailureFollowedByAnotherWithNoAnswerInBetweenIsTheProvidersAgain() throws Exception {
        UUID lonely = UUID.randomUUID();
        clock.advance(failOnce(lonely).retryAfter());
        circuit.answered(circuit.admit());
        assertThat(failOnce(lonely).counts()).isTrue();

        ProviderCircuit.Verdict afterSilence = failOnce(lonely);

        assertThat(afterSilence.counts()).isFalse();
        assertThat(circuit.state()).isEqualTo(State.OPEN);
    }

    @Test
    void aVictimOfAnEarlierOutageIsNotCountedInTheNextOne() throws Exception {
        UUID victim = UUID.randomUUID();
        clock.advance(failOnce(victim).retryAfter());
        circuit.answered(circuit.admit()); // the first outage ends
        clock.advance(failOnce(UUID.randomUUID()).retryAfter()); // a second outage begins with another conflict

        ProviderCircuit.Verdict verdict = circuit.failed(circuit.admit(), victim, "HTTP 503");

        assertThat(verdict.counts()).isFalse();
    }

    @Test
    void noFailureCountsWhileNoCallIsAnswered() throws Exception {
        // Many interleavings of conflicts, failures and probes: whatever the order, without an answer the
        // provider is blamed, never a conflict.
        for (long seed = 0; seed < 300; seed++) {
            Random random = new Random(seed);
            TestClock hand = new TestClock();
            ProviderCircuit fresh = new ProviderCircuit("anthropic", new CircuitSettings(), hand);
            List<UUID> conflicts = new ArrayList<>();
            for (int i = 0, n = 1 + random.nextInt(6); i < n; i++) {
                conflicts.add(UUID.randomUUID());
            }
            List<Ticket> inFlight = new ArrayList<>();
            for (int step = 0; step < 60; step++) {
                hand.advance(Duration.ofMillis(random.nextInt(3_000)));
                if (random.nextBoolean() || inFlight.isEmpty()) {
                    try {
                        inFlight.add(fresh.admit());
                    } catch (HeldBack held) {
                        assertThat(held.retryAfter().isNegative()).isFalse();
                    }
                } else {
                    Ticket ticket = inFlight.remove(random.nextInt(inFlight.size()));
                    UUID conflict = conflicts.get(random.nextInt(conflicts.size()));
                    assertThat(fresh.failed(ticket, conflict, "HTTP 502").counts()).as("seed %d", seed).isFalse();
                }
            }
        }
    }

    @Test
    void anOpenCircuitHoldsCallsBackUntilTheProbeIsDue() throws Exception {
        openIt();

        HeldBack held = catchThrowableOfType(circuit::admit, HeldBack.class);
        clock.advance(Duration.ofMillis(400));
        HeldBack later = catchThrowableOfType(circuit::admit, HeldBack.class);
        clock.advance(Duration.ofMillis(600));
        Ticket probe = circuit.admit();
        HeldBack besideTheProbe = catchThrowableOfType(circuit::admit, HeldBack.class);

        assertThat(held.retryAfter()).isEqualTo(Duration.ofSeconds(1));
        assertThat(later.retryAfter()).isEqualTo(Duration.ofMillis(600));
        assertThat(probe.probe()).isTrue();
        assertThat(circuit.state()).isEqualTo(State.PROBING);
        assertThat(besideTheProbe).as("one probe at a time").isNotNull();
    }

    @Test
    void failedProbesDoubleTheIntervalUpToTheCap() throws Exception {
        openIt();
        List<Duration> intervals = new ArrayList<>();
        Duration wait = Duration.ofSeconds(1);
        for (int i = 0; i < 6; i++) {
            clock.advance(wait);
            ProviderCircuit.Verdict verdict = circuit.failed(circuit.admit(), UUID.randomUUID(), "refused");
            assertThat(verdict.deferral()).isEqualTo(Cause.PROVIDER_OUTAGE);
            wait = verdict.retryAfter();
            intervals.add(wait);
        }
        assertThat(intervals).containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(4), Duration.ofSeconds(8),
                Duration.ofSeconds(15), Duration.ofSeconds(15), Duration.ofSeconds(15));
        assertThat(circuit.openings()).as("probes do not count as openings").isEqualTo(1);
    }

    @Test
    void theFirstAnswerClosesTheCircuitAndCallsGoOutAtOnce() throws Exception {
        openIt();
        clock.advance(Duration.ofSeconds(1));
        Ticket probe = circuit.admit();

        circuit.answered(probe);

        assertThat(circuit.state()).isEqualTo(State.CLOSED);
        assertThat(circuit.admit().probe()).isFalse();
        assertThat(circuit.status().open()).isFalse();
        // Closed afresh: the next outage is recognised at its first failure again, probed after one second again.
        openIt();
        assertThat(circuit.status().detail()).contains("next probe in 1000 ms");
    }

    @Test
    void aProbeThatLearnsNothingLetsTheNextCallProbe() throws Exception {
        openIt();
        clock.advance(Duration.ofSeconds(1));
        Ticket probe = circuit.admit();

        circuit.abandoned(probe);

        assertThat(circuit.admit().probe()).isTrue();
    }

    @Test
    void aLateAnswerToACallSentBeforeTheOutageDoesNotCloseTheCircuit() throws Exception {
        Ticket sentBefore = circuit.admit();
        openIt();

        circuit.answered(sentBefore);

        assertThat(circuit.state()).isEqualTo(State.OPEN);
        assertThat(circuit.openings()).isEqualTo(1);
    }

    @Test
    void aFailedCallThatWasSentBeforeTheCircuitOpenedWaitsForTheProbe() throws Exception {
        Ticket early = circuit.admit();
        openIt();
        clock.advance(Duration.ofMillis(300));

        ProviderCircuit.Verdict verdict = circuit.failed(early, UUID.randomUUID(), "timeout");

        assertThat(verdict.deferral()).isEqualTo(Cause.PROVIDER_OUTAGE);
        assertThat(verdict.retryAfter()).isEqualTo(Duration.ofMillis(700));
    }

    @Test
    void aProbeIntervalShorterThanTheFirstProbeIsRefusedAndTheOldOpenAfterIsOnlyIgnored() {
        CircuitSettings settings = new CircuitSettings();
        settings.setOpenAfter(1);
        settings.setMaxProbeInterval(Duration.ofMillis(100));

        assertThat(settings.problems()).singleElement().satisfies(p -> assertThat(p).contains("maxProbeInterval"));
        assertThat(settings.ignoredOpenAfter()).isEqualTo(1);
    }
}
