package io.mergesynthesis.service.worker;

import io.prometheus.client.Collector;
import io.prometheus.client.CounterMetricFamily;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.function.Function;

/**
 * A counter with one label whose values are fixed up front (the constants of an enum). Unlike simpleclient's
 * {@code Counter}, it exposes no {@code _created} series, so each labelled counter adds exactly as many series
 * as it has label values, and every value is reported from the start, at zero.
 */
final class FixedLabelCounter<E extends Enum<E>> extends Collector {

    private final String name;
    private final String help;
    private final String labelName;
    private final Function<E, String> labelValue;
    private final Map<E, DoubleAdder> counts = new LinkedHashMap<>();

    FixedLabelCounter(String name, String help, String labelName, Class<E> values, Function<E, String> labelValue) {
        this.name = name;
        this.help = help;
        this.labelName = labelName;
        this.labelValue = labelValue;
        for (E value : values.getEnumConstants()) {
            counts.put(value, new DoubleAdder());
        }
    }

    void inc(E value) {
        counts.get(value).add(1);
    }

    double get(E value) {
        return counts.get(value).sum();
    }

    @Override
    public List<MetricFamilySamples> collect() {
        CounterMetricFamily family = new CounterMetricFamily(name, help, List.of(labelName));
        counts.forEach((value, count) -> family.addMetric(List.of(labelValue.apply(value)), count.sum()));
        List<MetricFamilySamples> families = new ArrayList<>(1);
        families.add(family);
        return families;
    }
}
