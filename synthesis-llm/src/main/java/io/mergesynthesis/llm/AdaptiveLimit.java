package io.mergesynthesis.llm;

import io.mergesynthesis.synthesis.Ticker;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * How many calls this replica lets itself have in flight to one provider, found by AIMD: the limit starts at
 * the configured maximum, halves on every throttling event (never below one), and grows by one after each run
 * of successes as long as the limit itself. A provider that keeps throttling us so gets fewer, not more,
 * requests per second, while a recovered one gets its full share back within a few round trips.
 */
final class AdaptiveLimit {

    private final int max;
    private final Ticker ticker;
    private int limit;
    private int inFlight;
    private int successesSinceChange;

    AdaptiveLimit(int max, Ticker ticker) {
        if (max < 1) {
            throw new IllegalArgumentException("a concurrency limit must be at least 1, not " + max);
        }
        this.max = max;
        this.ticker = ticker;
        this.limit = max;
    }

    /**
     * Takes a slot, waiting up to {@code wait} for one to free up.
     *
     * @return false when no slot freed up in time
     * @throws InterruptedException at once when the calling worker is interrupted while waiting
     */
    synchronized boolean acquire(Duration wait) throws InterruptedException {
        long deadline = ticker.nanos() + wait.toNanos();
        while (inFlight >= limit) {
            long left = deadline - ticker.nanos();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        inFlight++;
        return true;
    }

    synchronized void release() {
        inFlight--;
        notifyAll();
    }

    synchronized void onSuccess() {
        successesSinceChange++;
        if (successesSinceChange >= limit && limit < max) {
            limit++;
            successesSinceChange = 0;
            notifyAll();
        }
    }

    synchronized void onThrottle() {
        limit = Math.max(1, limit / 2);
        successesSinceChange = 0;
    }

    synchronized int limit() {
        return limit;
    }

    synchronized int inFlight() {
        return inFlight;
    }
}
