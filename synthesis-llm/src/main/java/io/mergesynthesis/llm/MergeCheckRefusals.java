package io.mergesynthesis.llm;

import io.mergesynthesis.synthesis.MergeFinding;
import io.prometheus.client.Collector;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.CounterMetricFamily;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.DoubleAdder;

/**
 * {@code merge_check_refusals_total{code}}: merges the {@link io.mergesynthesis.synthesis.MergeCheck} refused,
 * counted once per finding code per refused merge. Two places refuse merges in one process, the LLM synthesizer
 * (a model's answer, before it is repaired or given up) and the worker (any synthesizer's merge, before it is
 * stored); both count into the one counter of their registry, so there is exactly one per registry, made by
 * whichever asks first.
 *
 * <p>The label takes only {@link MergeFinding.Code} wire names, every one of them reported from the start at
 * zero, and no {@code _created} series: as many series as there are codes.
 */
public final class MergeCheckRefusals extends Collector {

    public static final String NAME = "merge_check_refusals_total";

    /** Registries are compared by identity; one dropped by its owner takes its counter with it. */
    private static final Map<CollectorRegistry, MergeCheckRefusals> BY_REGISTRY = new WeakHashMap<>();

    private final Map<MergeFinding.Code, DoubleAdder> counts = new EnumMap<>(MergeFinding.Code.class);

    private MergeCheckRefusals() {
        for (MergeFinding.Code code : MergeFinding.Code.values()) {
            counts.put(code, new DoubleAdder());
        }
    }

    /** The counter of {@code registry}, registered there the first time it is asked for. */
    public static MergeCheckRefusals in(CollectorRegistry registry) {
        synchronized (BY_REGISTRY) {
            return BY_REGISTRY.computeIfAbsent(registry, r -> new MergeCheckRefusals().register(r));
        }
    }

    /** One refused merge: each code among {@code findings} counts once, however many findings share it. */
    public void refused(List<MergeFinding> findings) {
        Set<MergeFinding.Code> codes = EnumSet.noneOf(MergeFinding.Code.class);
        findings.forEach(finding -> codes.add(finding.code()));
        codes.forEach(code -> counts.get(code).add(1));
    }

    /** The count of one code, for tests. */
    public double count(MergeFinding.Code code) {
        return counts.get(code).sum();
    }

    @Override
    public List<MetricFamilySamples> collect() {
        CounterMetricFamily family = new CounterMetricFamily(NAME,
                "Merges the merge check refused before they could be stored, once per finding code per merge.",
                List.of("code"));
        counts.forEach((code, count) -> family.addMetric(List.of(code.wireName()), count.sum()));
        List<MetricFamilySamples> families = new ArrayList<>(1);
        families.add(family);
        return families;
    }
}
