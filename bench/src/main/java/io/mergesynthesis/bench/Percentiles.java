package io.mergesynthesis.bench;

import java.util.Arrays;

/** Nearest-rank percentiles of a set of samples. */
final class Percentiles {

    private final double[] sorted;

    Percentiles(double[] samples) {
        if (samples.length == 0) {
            throw new IllegalArgumentException("no samples");
        }
        this.sorted = samples.clone();
        Arrays.sort(sorted);
    }

    double at(double percentile) {
        int rank = (int) Math.ceil(percentile / 100.0 * sorted.length);
        return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
    }

    int count() {
        return sorted.length;
    }
}
