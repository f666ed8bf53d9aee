package io.mergesynthesis.service.worker.drill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mergesynthesis.synthesis.Action;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.Effect;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.PolicyRule;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.Scope;
import io.mergesynthesis.synthesis.SynthesisException;
import io.mergesynthesis.testsupport.Wait;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CallJournalTest {

    private static final ResolvedModel MODEL = new ResolvedModel("conflict.merge_synthesis", "stub", "m");
    private static final Clock CLOCK = Clock.fixed(Instant.ofEpochMilli(1_700_000_000_123L), ZoneOffset.UTC);

    private static ConflictSnapshot conflict(String target) {
        return new ConflictSnapshot(UUID.randomUUID(), UUID.randomUUID(), "k", Action.TOOL_CALL, target,
                List.of(new PolicyRule("p1", Scope.ORG, "o", Effect.DENY, target)), "p1",
                Instant.parse("2026-11-20T10:15:00Z"));
    }

    @Test
    void offUnlessAFileIsNamed() {
        MergeSynthesizer stub = stub();
        assertThat(new FaultsFactory().journal(stub, "r1", CLOCK)).isSameAs(stub);
    }

    @Test
    void recordsTheStartAndEndOfEveryCallIncludingInjectedFailures(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("calls").resolve("journal.log");
        FaultsFactory faults = new FaultsFactory();
        faults.setCallLog(log.toString());
        MergeSynthesizer faulty = new FaultInjectingSynthesizer(stub(), 0, 0,
                Optional.of(Pattern.compile("^export\\.")), () -> 0.99);
        MergeSynthesizer journaled = faults.journal(faulty, "replica-a", CLOCK);

        ConflictSnapshot good = conflict("jira.create_issue");
        ConflictSnapshot poison = conflict("export.all");
        journaled.synthesize(good, MODEL);
        assertThatThrownBy(() -> journaled.synthesize(poison, MODEL)).isInstanceOf(SynthesisException.class);

        assertThat(Files.readAllLines(log, StandardCharsets.UTF_8)).containsExactly(
                "1700000000123 replica-a " + good.conflictId() + " start",
                "1700000000123 replica-a " + good.conflictId() + " ok",
                "1700000000123 replica-a " + poison.conflictId() + " start",
                "1700000000123 replica-a " + poison.conflictId() + " failed");
    }

    @Test
    void aCallCutByAnInterruptIsRecordedAndTheJournalKeepsWorking(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("journal.log");
        FaultsFactory faults = new FaultsFactory();
        faults.setCallLog(log.toString());
        MergeSynthesizer hanging = new FaultInjectingSynthesizer(stub(), 0, 1, Optional.empty(),
                () -> 0.5);
        MergeSynthesizer journaled = faults.journal(hanging, "r", CLOCK);
        ConflictSnapshot hung = conflict("jira.create_issue");

        Thread caller = new Thread(() -> {
            try {
                journaled.synthesize(hung, MODEL);
            } catch (InterruptedException expected) {
                // the timeout's interrupt
            } catch (SynthesisException e) {
                throw new AssertionError(e);
            }
        });
        caller.start();
        Wait.until("the hung call's line in the journal", Duration.ofSeconds(20),
                () -> Files.exists(log) && !Files.readAllLines(log).isEmpty());
        caller.interrupt();
        caller.join(5_000);
        assertThat(caller.isAlive()).isFalse();

        MergeSynthesizer again = faults.journal(stub(), "r", CLOCK);
        ConflictSnapshot next = conflict("jira.create_issue");
        again.synthesize(next, MODEL);
        assertThat(Files.readAllLines(log, StandardCharsets.UTF_8)).containsExactly(
                "1700000000123 r " + hung.conflictId() + " start",
                "1700000000123 r " + hung.conflictId() + " interrupted",
                "1700000000123 r " + next.conflictId() + " start",
                "1700000000123 r " + next.conflictId() + " ok");
    }

    private static MergeSynthesizer stub() {
        return new io.mergesynthesis.synthesis.StubSynthesizer(
                java.time.Clock.fixed(java.time.Instant.parse("2026-11-20T12:00:00Z"), java.time.ZoneOffset.UTC));
    }
}
