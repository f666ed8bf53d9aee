package io.mergesynthesis.bench;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Everything one run found out: the figures, the scale curve, what it ran on, and what went wrong. */
final class Results {

    /** One figure: a value, or the reason there is none. */
    record Figure(Metric metric, Double value, String skipped) {
    }

    /** One point of the scale curve; a side that was not measured is null. */
    record ScalePoint(int historyRows, Double poolPerSecond, Double ceilingPerSecond) {
    }

    private final Map<Metric, Figure> figures = new EnumMap<>(Metric.class);
    private final Map<Integer, ScalePoint> scale = new java.util.TreeMap<>();
    private final Map<Metric, Metric.Target> targets = new EnumMap<>(Metric.class);
    private final Map<String, String> notes = new LinkedHashMap<>();
    private final List<String> errors = new ArrayList<>();
    final Map<String, Object> context = new LinkedHashMap<>();

    void put(Metric metric, double value) {
        figures.put(metric, new Figure(metric, value, null));
    }

    /** Holds {@code metric} to {@code target} in this run instead of the one it states (a size-dependent bound). */
    void target(Metric metric, Metric.Target target) {
        targets.put(metric, target);
    }

    /** What {@code metric} is held to in this run, or null. */
    Metric.Target targetOf(Metric metric) {
        return targets.getOrDefault(metric, metric.target);
    }

    void skip(Metric metric, String reason) {
        figures.put(metric, new Figure(metric, null, reason));
    }

    /** Skips every metric in {@code metrics} not already reported, for the same reason. */
    void skipRemaining(String reason, Metric... metrics) {
        for (Metric m : metrics) {
            figures.putIfAbsent(m, new Figure(m, null, reason));
        }
    }

    Double value(Metric metric) {
        Figure f = figures.get(metric);
        return f == null ? null : f.value();
    }

    /** Reports {@code numerator / denominator}, or skips it naming whichever side is missing. */
    void ratio(Metric metric, Metric numerator, Metric denominator) {
        Double top = value(numerator);
        Double bottom = value(denominator);
        if (top != null && bottom != null && bottom > 0) {
            put(metric, top / bottom);
        } else {
            Metric missing = top == null ? numerator : denominator;
            Figure why = figures.get(missing);
            String because = why == null || why.skipped() == null ? "" : " (" + why.skipped() + ")";
            skip(metric, "needs " + missing.key + because);
        }
    }

    void scalePool(int history, double perSecond) {
        scale.merge(history, new ScalePoint(history, perSecond, null),
                (old, add) -> new ScalePoint(history, perSecond, old.ceilingPerSecond()));
    }

    void scaleCeiling(int history, double perSecond) {
        scale.merge(history, new ScalePoint(history, null, perSecond),
                (old, add) -> new ScalePoint(history, old.poolPerSecond(), perSecond));
    }

    void note(String key, String text) {
        notes.put(key, text);
    }

    /** A failure that is not a missing feature: reported, and the run exits non-zero. */
    void error(String step, Throwable cause) {
        errors.add(step + ": " + cause);
    }

    List<Figure> figures() {
        List<Figure> out = new ArrayList<>();
        for (Metric m : Metric.values()) {
            out.add(figures.getOrDefault(m, new Figure(m, null, "not measured")));
        }
        return out;
    }

    List<ScalePoint> scale() {
        return List.copyOf(scale.values());
    }

    Map<String, String> notes() {
        return notes;
    }

    List<String> errors() {
        return errors;
    }
}
