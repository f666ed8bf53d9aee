package io.mergesynthesis.bench;

import java.util.OptionalDouble;

/** Reads one series out of a replica's {@code /metrics} text (the Prometheus text format). */
final class MetricsText {

    private MetricsText() {
    }

    /**
     * The sum of the samples named {@code name} whose labels contain {@code label} (for example
     * {@code provider="local"}; null for any), or empty when there is none.
     */
    static OptionalDouble value(String text, String name, String label) {
        double sum = 0;
        boolean found = false;
        for (String line : text.split("\n")) {
            if (line.startsWith("#") || !(line.startsWith(name + " ") || line.startsWith(name + "{"))) {
                continue;
            }
            if (label != null && !line.contains(label)) {
                continue;
            }
            String[] parts = line.trim().split(" ");
            try {
                sum += Double.parseDouble(parts[parts.length - 1]);
                found = true;
            } catch (NumberFormatException e) {
                // not a sample line after all
            }
        }
        return found ? OptionalDouble.of(sum) : OptionalDouble.empty();
    }
}
