package io.mergesynthesis.llm;

import io.mergesynthesis.synthesis.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A ticker the test moves by hand, so that a deadline passes when the test says and not after a sleep. */
final class TestTicker implements Ticker {

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    void advance(Duration by) {
        nanos.addAndGet(by.toNanos());
    }

    @Override
    public long nanos() {
        return nanos.get();
    }
}
