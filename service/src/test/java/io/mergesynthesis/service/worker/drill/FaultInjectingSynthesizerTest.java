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
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class FaultInjectingSynthesizerTest {

    private static final ResolvedModel MODEL = new ResolvedModel("conflict.merge_synthesis", "stub", "m");

    private static ConflictSnapshot conflict(String target) {
        return new ConflictSnapshot(UUID.randomUUID(), UUID.randomUUID(), "k", Action.TOOL_CALL, target,
                List.of(new PolicyRule("p1", Scope.ORG, "o", Effect.DENY, target)), "p1",
                Instant.parse("2026-11-20T10:15:00Z"));
    }

    @Test
    void offByDefault() {
        MergeSynthesizer stub = stub();
        assertThat(new FaultsFactory().wrap(stub)).isSameAs(stub);
    }

    @Test
    void latencyDelaysEveryCallAndKeepsItsResult() throws Exception {
        FaultsFactory faults = new FaultsFactory();
        faults.setLatency(io.dropwizard.util.Duration.milliseconds(50));
        MergeSynthesizer stub = stub();
        MergeSynthesizer slow = faults.wrap(stub);
        assertThat(slow).isInstanceOf(DelayedSynthesizer.class);

        ConflictSnapshot conflict = conflict("jira.create_issue");
        long started = System.nanoTime();
        var merge = slow.synthesize(conflict, MODEL);
        assertThat(System.nanoTime() - started).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
        assertThat(merge).isEqualTo(stub.synthesize(conflict, MODEL));
    }

    @Test
    void matchingTargetsAlwaysFailOthersPassThrough() throws Exception {
        MergeSynthesizer faulty = new FaultInjectingSynthesizer(stub(), 0, 0,
                Optional.of(Pattern.compile("^export\\.")), () -> 0.99);
        assertThatThrownBy(() -> faulty.synthesize(conflict("export.all"), MODEL))
                .isInstanceOf(SynthesisException.class).hasMessageContaining("alwaysFailTargets");
        assertThat(faulty.synthesize(conflict("jira.create_issue"), MODEL)).isNotNull();
    }

    @Test
    void theRollDecidesBetweenFailingHangingAndPassing() throws Exception {
        MergeSynthesizer fails = new FaultInjectingSynthesizer(stub(), 0.3, 0.2, Optional.empty(),
                () -> 0.1);
        assertThatThrownBy(() -> fails.synthesize(conflict("a"), MODEL)).isInstanceOf(SynthesisException.class);
        MergeSynthesizer passes = new FaultInjectingSynthesizer(stub(), 0.3, 0.2, Optional.empty(),
                () -> 0.6);
        assertThat(passes.synthesize(conflict("a"), MODEL)).isNotNull();
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void aHangLastsUntilInterrupted() throws Exception {
        MergeSynthesizer hangs = new FaultInjectingSynthesizer(stub(), 0.3, 0.2, Optional.empty(),
                () -> 0.4);
        Thread[] runner = new Thread[1];
        CompletableFuture<Throwable> ended = new CompletableFuture<>();
        runner[0] = new Thread(() -> {
            try {
                hangs.synthesize(conflict("a"), MODEL);
                ended.complete(null);
            } catch (Throwable t) {
                ended.complete(t);
            }
        });
        runner[0].start();
        Wait.until("the call to block", java.time.Duration.ofSeconds(10),
                () -> runner[0].getState() == Thread.State.WAITING);
        assertThat(ended).isNotDone();
        runner[0].interrupt();
        assertThat(ended.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    }

    private static MergeSynthesizer stub() {
        return new io.mergesynthesis.synthesis.StubSynthesizer(
                java.time.Clock.fixed(java.time.Instant.parse("2026-11-20T12:00:00Z"), java.time.ZoneOffset.UTC));
    }

}
