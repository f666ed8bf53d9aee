package io.mergesynthesis.service.testing;

import io.mergesynthesis.synthesis.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A ticker the test moves by hand, so that deadlines and pauses end when the test says, not after a sleep. */
public final class HandTicker implements Ticker {
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    public void advance(Duration by) {
        nanos.addAndGet(by.toNanos());
    }

    @Override
    public long nanos() {
        return nanos.get();
    }
}
