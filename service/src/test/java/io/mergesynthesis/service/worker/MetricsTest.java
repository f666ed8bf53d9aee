package io.mergesynthesis.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.worker.WorkerFixture.Replica;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.MergeFinding;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.SuggestedMerge;
import io.mergesynthesis.synthesis.SynthesisException;
import io.mergesynthesis.testsupport.Wait;
import io.prometheus.client.Collector.MetricFamilySamples;
import io.prometheus.client.Collector.MetricFamilySamples.Sample;
import io.prometheus.client.CollectorRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The contract metrics: names, label values, buckets, and counts that match what happened. */
class MetricsTest {

    @Test
    void everyContractSeriesExistsFromTheStartAndNoOthersCarryLabels() {
        CollectorRegistry registry = new CollectorRegistry(true);
        new SynthesisMetrics(registry);
        SynthesisMetrics.registerWaiting(registry, () -> 7);
        SynthesisMetrics.registerLeasesAhead(registry, () -> 5);
        List<Sample> samples = samples(registry);

        assertThat(valuesOf(samples, "synthesis_attempts_total", "outcome"))
                .containsExactlyInAnyOrder("success", "transient_failure", "permanent_failure", "skipped");
        assertThat(valuesOf(samples, "synthesis_failures_total", "reason")).containsExactlyInAnyOrder(
                "set_org_id", "load_row", "router_resolve", "synthesizer", "invalid_json", "write_merge",
                "max_attempts_exceeded", "unknown");
        assertThat(samples).filteredOn(s -> s.name.equals("synthesis_attempts_total")
                || s.name.equals("synthesis_failures_total")).allSatisfy(s -> assertThat(s.value).isZero());

        List<String> buckets = samples.stream().filter(s -> s.name.equals("synthesis_duration_seconds_bucket"))
                .map(s -> s.labelValues.get(0)).toList();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 17; i++) {
            expected.add(io.prometheus.client.Collector.doubleToGoString(0.001 * Math.pow(2, i)));
        }
        expected.add("+Inf");
        assertThat(buckets).containsExactlyElementsOf(expected);
        assertThat(buckets.get(16)).isEqualTo("65.536");

        // Every finding code of the merge check, and nothing else, at zero.
        assertThat(valuesOf(samples, "merge_check_refusals_total", "code")).containsExactlyInAnyOrderElementsOf(
                Arrays.stream(MergeFinding.Code.values()).map(MergeFinding.Code::wireName).toList());
        assertThat(samples).filteredOn(s -> s.name.equals("merge_check_refusals_total"))
                .allSatisfy(s -> assertThat(s.value).isZero());

        // Labels: only outcome, reason and code, plus the histogram's own le; 12 labelled series and one per code.
        Set<String> labelNames = new HashSet<>();
        samples.forEach(s -> labelNames.addAll(s.labelNames));
        assertThat(labelNames).containsExactlyInAnyOrder("outcome", "reason", "code", "le");
        long labelled = samples.stream().filter(s -> !s.labelNames.isEmpty() && !s.labelNames.equals(List.of("le")))
                .count();
        assertThat(labelled).isEqualTo(12 + MergeFinding.Code.values().length);
        assertThat(registry.getSampleValue("synthesis_pending_conflicts")).isEqualTo(7.0);
        assertThat(registry.getSampleValue("synthesis_in_flight")).isZero();
        assertThat(registry.getSampleValue("synthesis_leases_ahead")).isEqualTo(5.0);
        assertThat(registry.getSampleValue("synthesis_lease_recoveries_total")).isZero();
    }

    /** Fails every conflict whose target starts with "fail.", writes the stub's merge for the others. */
    static final class FailsSome implements MergeSynthesizer {
        private final MergeSynthesizer stub = WorkerFixture.stub();

        @Override
        public String name() {
            return "fails-some";
        }

        @Override
        public SuggestedMerge synthesize(ConflictSnapshot conflict, ResolvedModel model)
                throws SynthesisException, InterruptedException {
            if (conflict.target().startsWith("fail.")) {
                throw new SynthesisException("no merge for " + conflict.target());
            }
            return stub.synthesize(conflict, model);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void countsMatchTheOutcomes() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            fixture.insertConflicts(5, "jira.create_issue");
            fixture.insertConflicts(2, "fail.always");
            Replica replica = fixture.replica(WorkerFixture.settings("metered").maxAttempts(2), new FailsSome());
            replica.pool().start();
            Wait.until("all conflicts settled", Duration.ofSeconds(30), () -> fixture.count(
                    "synthesis_state IN ('done', 'max_attempts_exceeded')") == 7);
            replica.pool().stop();

            assertThat(replica.attempts(Outcome.SUCCESS)).isEqualTo(5);
            assertThat(replica.attempts(Outcome.TRANSIENT_FAILURE)).isEqualTo(2);
            assertThat(replica.attempts(Outcome.PERMANENT_FAILURE)).isEqualTo(2);
            assertThat(replica.attempts(Outcome.SKIPPED)).isZero();
            assertThat(replica.failures(FailureReason.SYNTHESIZER)).isEqualTo(4);
            for (FailureReason other : FailureReason.values()) {
                if (other != FailureReason.SYNTHESIZER) {
                    assertThat(replica.failures(other)).as(other.label()).isZero();
                }
            }
            assertThat(replica.registry().getSampleValue("synthesis_duration_seconds_count")).isEqualTo(9.0);
            assertThat(replica.registry().getSampleValue("synthesis_in_flight")).isZero();
        }
    }

    private static List<Sample> samples(CollectorRegistry registry) {
        List<Sample> all = new ArrayList<>();
        for (MetricFamilySamples family : Collections.list(registry.metricFamilySamples())) {
            all.addAll(family.samples);
        }
        return all;
    }

    private static List<String> valuesOf(List<Sample> samples, String name, String label) {
        return samples.stream().filter(s -> s.name.equals(name))
                .peek(s -> assertThat(s.labelNames).isEqualTo(Arrays.asList(label)))
                .map(s -> s.labelValues.get(0)).toList();
    }
}
