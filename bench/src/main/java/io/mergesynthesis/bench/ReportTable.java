package io.mergesynthesis.bench;

import java.io.PrintStream;
import java.util.Locale;
import java.util.Map;

/**
 * The printed form of the results: one line per figure (with its target and MET or MISSED when it has one), then
 * the scale curve, the machine and the notes.
 */
final class ReportTable {

    private ReportTable() {
    }

    static void print(Results results, PrintStream out) {
        out.println();
        out.println("merge-synthesis benchmark");
        out.println("=".repeat(100));
        out.printf(Locale.ROOT, "%-62s %14s  %s%n", "figure", "value", "unit");
        out.println("-".repeat(100));
        for (Results.Figure f : results.figures()) {
            if (f.value() != null) {
                out.printf(Locale.ROOT, "%-62s %14s  %s%s%n", f.metric().label, format(f.value()), f.metric().unit,
                        target(results.targetOf(f.metric()), f.value()));
            } else {
                out.printf(Locale.ROOT, "%-62s %14s  %s%n", f.metric().label, "skipped", f.skipped());
            }
        }
        out.println("-".repeat(100));
        out.println("scale: drain throughput with finished conflicts already in the table");
        out.printf(Locale.ROOT, "  %14s %18s %18s%n", "history rows", "pool conflicts/s", "ceiling conflicts/s");
        for (Results.ScalePoint p : results.scale()) {
            out.printf(Locale.ROOT, "  %14d %18s %18s%n", p.historyRows(), orDash(p.poolPerSecond()),
                    orDash(p.ceilingPerSecond()));
        }
        out.println("-".repeat(100));
        for (Map.Entry<String, Object> e : results.context.entrySet()) {
            out.println(e.getKey() + ": " + e.getValue());
        }
        for (Map.Entry<String, String> e : results.notes().entrySet()) {
            out.println("note " + e.getKey() + ": " + e.getValue());
        }
        for (String error : results.errors()) {
            out.println("ERROR " + error);
        }
        out.println("=".repeat(100));
    }

    /** "; target at least 19 (...): MET", or nothing for a figure without a target. */
    static String target(Metric.Target target, double value) {
        if (target == null) {
            return "";
        }
        String verdict = target.verdict(value);
        String described = target.describe();
        if (verdict == null) {
            return described.isEmpty() ? "" : "  " + described;
        }
        return "  target " + described + ": " + verdict;
    }

    static String format(double value) {
        if (Math.abs(value) >= 100) {
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        return String.format(Locale.ROOT, "%.3f", value);
    }

    private static String orDash(Double value) {
        return value == null ? "-" : format(value);
    }
}
