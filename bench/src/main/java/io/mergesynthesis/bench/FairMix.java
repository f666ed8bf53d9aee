package io.mergesynthesis.bench;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The orgs whose shares of the calls the fair-share step measures: three, with backlogs of {@link #BACKLOGS}, the
 * largest reported first, at the weights of the mix. Each mix has orgs of its own ({@link #org}), so that a weight
 * one mix sets does not carry into the other.
 */
enum FairMix {
    EQUAL("equal", new int[] {1, 1, 1}, Metric.FAIR_EQUAL_100, Metric.FAIR_EQUAL_1000, Metric.FAIR_EQUAL_10000),
    WEIGHTED("weighted", new int[] {1, 1, 2}, Metric.FAIR_WEIGHTED_100, Metric.FAIR_WEIGHTED_1000,
            Metric.FAIR_WEIGHTED_10000);

    /** Each org's backlog, smallest first; the weights and figures go in the same order. */
    static final int[] BACKLOGS = {100, 1_000, 10_000};
    /** The bench org numbers of the mixes' orgs start here, clear of the orgs other steps seed. */
    private static final int FIRST_ORG = 9_100;

    final String key;
    final int[] weights;
    final Metric[] figures;

    FairMix(String key, int[] weights, Metric... figures) {
        this.key = key;
        this.weights = weights;
        this.figures = figures;
    }

    /** The bench org number ({@link Seeder#orgId}) of the org with backlog {@code BACKLOGS[i]}. */
    int org(int i) {
        return FIRST_ORG + 10 * ordinal() + i;
    }

    /** The share of the calls due to org {@code i} while all three wait: its weight over the sum of weights. */
    double due(int i) {
        return weights[i] / (double) Arrays.stream(weights).sum();
    }

    /** {@code weights 1/1/2}. */
    String describe() {
        return "weights " + Arrays.stream(weights).mapToObj(Integer::toString).collect(Collectors.joining("/"));
    }
}
