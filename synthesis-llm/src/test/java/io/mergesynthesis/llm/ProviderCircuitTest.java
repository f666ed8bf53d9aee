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
        for (int i = 0; i < 5; i++) {
            failOnce(UUID.randomUUID());
        }
        assertThat(circuit.state()).isEqualTo(State.OPEN);
    }

    @Test
    void failuresOfDifferentConflictsOpenTheCircuitWithoutCountingAny() throws Exception {
        List<ProviderCircuit.Verdict> verdicts = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            verdicts.add(failOnce(UUID.randomUUID()));
        }

        assertThat(verdicts).noneMatch(ProviderCircuit.Verdict::counts);
        assertThat(verdicts.subList(0, 4)).extracting(ProviderCircuit.Verdict::deferral)
                .containsOnly(Cause.OUTAGE_SUSPECTED);
        assertThat(verdicts.get(4).deferral()).isEqualTo(Cause.PROVIDER_OUTAGE);
        assertThat(circuit.state()).isEqualTo(State.OPEN);
        assertThat(circuit.openings()).isEqualTo(1);
        assertThat(circuit.status().open()).isTrue();
        assertThat(circuit.status().detail()).contains("down", "HTTP 503", "next probe in 1000 ms");
    }

    @Test
    void aConflictThatFailsAloneCountsFromItsSecondFailure() throws Exception {
        UUID lonely = UUID.randomUUID();

        ProviderCircuit.Verdict first = failOnce(lonely);
        circuit.answered(circuit.admit()); // other conflicts get answers meanwhile
        ProviderCircuit.Verdict second = failOnce(lonely);
        circuit.answered(circuit.admit());
        ProviderCircuit.Verdict third = failOnce(lonely);

        assertThat(first.deferral()).isEqualTo(Cause.OUTAGE_SUSPECTED);
        assertThat(second.counts()).isTrue();
        assertThat(third.counts()).isTrue();
        assertThat(circuit.state()).isEqualTo(State.CLOSED);
    }

    @Test
    void aConflictFailingAgainWithNoAnswerInBetweenOpensTheCircuitWithoutCountingEitherFailure() throws Exception {
        UUID quiet = UUID.randomUUID();

        ProviderCircuit.Verdict first = failOnce(quiet);
        ProviderCircuit.Verdict second = failOnce(quiet);

        assertThat(first.deferral()).isEqualTo(Cause.OUTAGE_SUSPECTED);
        assertThat(second.deferral()).as("nothing answered since its first failure").isEqualTo(Cause.PROVIDER_OUTAGE);
        assertThat(second.retryAfter()).isEqualTo(Duration.ofSeconds(1));
        assertThat(circuit.state()).isEqualTo(State.OPEN);
        assertThat(circuit.status().detail()).contains("a conflict failed twice with no call answered in between");
    }

    @Test
    void anAnswerToACallLetOutBeforeTheConflictFailedDoesNotMakeItsNextFailureCount() throws Exception {
        UUID quiet = UUID.randomUUID();
        Ticket sentEarlier = circuit.admit();
        failOnce(quiet);

        circuit.answered(sentEarlier);
        ProviderCircuit.Verdict second = failOnce(quiet);

        assertThat(second.counts()).isFalse();
        assertThat(circuit.state()).isEqualTo(State.OPEN);
    }

    @Test
    void aConflictThatAlwaysFailsWhileOnlyTheProbesAreAnsweredCountsEveryOtherFailure() throws Exception {
        UUID choking = UUID.randomUUID();
        List<Boolean> counted = new ArrayList<>();
        while (counted.stream().filter(c -> c).count() < 3) {
            assertThat(counted).as("the conflict reaches its third counted failure").hasSizeLessThan(10);
            if (circuit.state() == State.OPEN) {
                clock.advance(Duration.ofSeconds(1));
                circuit.answered(circuit.admit()); // the free probe: the provider answers its model list
            }
            counted.add(failOnce(choking).counts());
        }

        assertThat(counted).containsExactly(false, false, true, false, true, false, true);
        assertThat(circuit.openings()).isEqualTo(3);
    }

    @Test
    void anAnswerInBetweenStartsTheCountAgain() throws Exception {
        for (int i = 0; i < 4; i++) {
            failOnce(UUID.randomUUID());
        }
        circuit.answered(circuit.admit());
        for (int i = 0; i < 4; i++) {
            failOnce(UUID.randomUUID());
        }
        assertThat(circuit.state()).isEqualTo(State.CLOSED);
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
            Ticket probe = circuit.admit();
            assertThat(probe.probe()).isTrue();
            wait = circuit.probeFailed(probe, "refused");
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
        // Closed afresh: the next outage is recognised after five conflicts again, probed after one second again.
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
    void aCallSentBeforeAnOutageThatFailsAfterItEndedCostsNothingAndOpensNothing() throws Exception {
        UUID conflict = UUID.randomUUID();
        Ticket sentBefore = circuit.admit();
        failOnce(conflict);
        for (int i = 0; i < 4; i++) {
            failOnce(UUID.randomUUID());
        }
        assertThat(circuit.state()).isEqualTo(State.OPEN);
        clock.advance(Duration.ofSeconds(1));
        circuit.answered(circuit.admit());

        ProviderCircuit.Verdict late = circuit.failed(sentBefore, conflict, "timeout");

        assertThat(late.counts()).isFalse();
        assertThat(late.deferral().pausesProvider()).as("the others go on").isFalse();
        assertThat(circuit.state()).isEqualTo(State.CLOSED);
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
    void settingsThatCouldNeverTellAnOutageFromOneConflictAreRefused() {
        CircuitSettings settings = new CircuitSettings();
        settings.setOpenAfter(1);
        settings.setMaxProbeInterval(Duration.ofMillis(100));

        assertThat(settings.problems()).hasSize(2)
                .anySatisfy(p -> assertThat(p).contains("llm.circuit.openAfter is 1"))
                .anySatisfy(p -> assertThat(p).contains("maxProbeInterval"));
    }
}
