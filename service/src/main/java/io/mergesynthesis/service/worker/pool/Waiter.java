package io.mergesynthesis.service.worker.pool;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Where the claim loop idles: it waits up to a timeout, or less if someone calls {@link #wake()}. A wake that
 * arrives while nobody waits is kept, so the next wait returns at once and no wake-up is ever lost.
 */
public final class Waiter {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition woken = lock.newCondition();
    private boolean pending;

    public void wake() {
        lock.lock();
        try {
            pending = true;
            woken.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits until woken or {@code timeout} has passed; true when woken. */
    boolean await(Duration timeout) throws InterruptedException {
        long remaining = timeout.toNanos();
        lock.lock();
        try {
            while (!pending && remaining > 0) {
                remaining = woken.awaitNanos(remaining);
            }
            boolean wasWoken = pending;
            pending = false;
            return wasWoken;
        } finally {
            lock.unlock();
        }
    }
}
