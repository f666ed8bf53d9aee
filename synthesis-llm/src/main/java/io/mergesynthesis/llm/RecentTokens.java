package io.mergesynthesis.llm;

import java.util.Arrays;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * The token counts a provider reported for the last calls to one model, for estimating the next call's before it
 * is sent: a limit is charged when a call starts, and its tokens are known only from its answer. What a call must
 * find left is a high percentile of the last counts, so that a call larger than most is rarely under-charged; what
 * it is expected to cost in the end, which spaces the calls, is their mean. What a call really cost is settled
 * when its answer comes.
 */
final class RecentTokens {

    /** How many of the last counts are kept. */
    static final int KEPT = 32;
    /** The share of the kept counts the estimate is at least as large as. */
    static final double PERCENTILE = 0.9;

    private final long[] counts = new long[KEPT]; // guarded by this; a ring
    private int recorded; // guarded by this

    synchronized void record(long count) {
        counts[recorded % KEPT] = Math.max(0, count);
        recorded++;
    }

    /** The mean of the last counts; empty before any count was recorded. */
    synchronized OptionalDouble mean() {
        int n = Math.min(recorded, KEPT);
        if (n == 0) {
            return OptionalDouble.empty();
        }
        return Arrays.stream(counts, 0, n).average();
    }

    /** The high percentile of the last counts, for the next call; empty before any count was recorded. */
    synchronized OptionalLong estimate() {
        int n = Math.min(recorded, KEPT);
        if (n == 0) {
            return OptionalLong.empty();
        }
        long[] sorted = Arrays.copyOf(counts, n);
        Arrays.sort(sorted);
        return OptionalLong.of(sorted[Math.min(n - 1, (int) Math.ceil(PERCENTILE * n) - 1)]);
    }
}
