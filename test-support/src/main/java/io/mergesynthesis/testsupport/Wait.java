package io.mergesynthesis.testsupport;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The one way a test waits for something to happen: a condition, a value, or a latch, each with a timeout and the
 * words of what is awaited, so that a test that gives up says what it gave up on and after how long. Polling is
 * Awaitility's (docs/adr/0067); this class only insists that every wait is named and fails as an assertion.
 *
 * <p>A wait is for what another thread or process does. Time the product reads from an injected clock or ticker is
 * moved by hand instead, and never waited for.
 */
public final class Wait {

    /** How often a condition is checked: short, since most conditions are one query or one read of memory. */
    private static final Duration POLL = Duration.ofMillis(10);

    private Wait() {
    }

    /** A condition that may throw, such as a query or an HTTP call. */
    @FunctionalInterface
    public interface Condition {
        boolean holds() throws Exception;
    }

    /** A reading that may throw, such as a query or an HTTP call. */
    @FunctionalInterface
    public interface Reading<T> {
        T read() throws Exception;
    }

    /** Returns once {@code condition} holds; fails with an {@link AssertionError} naming {@code what} at the timeout. */
    public static void until(String what, Duration timeout, Condition condition) {
        until(what, timeout, POLL, condition);
    }

    /**
     * As {@link #until(String, Duration, Condition)}, checking every {@code every}: for a condition that costs
     * the processes under test something each time, such as a query of their database or a request to them.
     */
    public static void until(String what, Duration timeout, Duration every, Condition condition) {
        forValue(what, timeout, every, condition::holds, Boolean.TRUE::equals);
    }

    /**
     * Whether {@code condition} came to hold within {@code timeout}: for a drill that reports how far the product
     * got instead of failing at the first shortfall. Returns as soon as it holds.
     */
    public static boolean holdsWithin(String what, Duration timeout, Condition condition) {
        return holdsWithin(what, timeout, POLL, condition);
    }

    /** As {@link #holdsWithin(String, Duration, Condition)}, checking every {@code every}. */
    public static boolean holdsWithin(String what, Duration timeout, Duration every, Condition condition) {
        Objects.requireNonNull(what, "what is awaited");
        try {
            poll(what, timeout, every).until(condition::holds);
            return true;
        } catch (ConditionTimeoutException timedOut) {
            return false;
        }
    }

    /** Returns the first reading that is not null; fails naming {@code what} at the timeout. */
    public static <T> T forValue(String what, Duration timeout, Reading<T> reading) {
        return forValue(what, timeout, reading, Objects::nonNull);
    }

    /**
     * Returns the first reading that {@code accepted} takes; fails naming {@code what}, the timeout and the last
     * reading at the timeout.
     */
    public static <T> T forValue(String what, Duration timeout, Reading<T> reading, Predicate<? super T> accepted) {
        return forValue(what, timeout, POLL, reading, accepted);
    }

    /** As {@link #forValue(String, Duration, Reading, Predicate)}, reading every {@code every}. */
    public static <T> T forValue(String what, Duration timeout, Duration every, Reading<T> reading,
                                 Predicate<? super T> accepted) {
        Objects.requireNonNull(what, "what is awaited");
        Objects.requireNonNull(timeout, "timeout");
        AtomicReference<T> last = new AtomicReference<>();
        try {
            return poll(what, timeout, every).until(() -> {
                T value = reading.read();
                last.set(value);
                return value;
            }, value -> accepted.test(value));
        } catch (ConditionTimeoutException timedOut) {
            throw new AssertionError("waited " + timeout + " for " + what + " in vain; last seen: " + last.get(),
                    timedOut);
        }
    }

    /** Returns once {@code latch} is open; fails naming {@code what} at the timeout. */
    public static void forLatch(String what, Duration timeout, CountDownLatch latch) {
        Objects.requireNonNull(what, "what is awaited");
        try {
            if (!latch.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new AssertionError("waited " + timeout + " for " + what + " in vain; "
                        + latch.getCount() + " count(s) still to go");
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for " + what, interrupted);
        }
    }

    private static ConditionFactory poll(String what, Duration timeout, Duration every) {
        // In the caller's thread: conditions read thread-confined fixtures and handles, and a failure's stack
        // trace then shows the test that waited.
        return Awaitility.await(what)
                .atMost(timeout)
                .pollDelay(Duration.ZERO)
                .pollInterval(every)
                .pollInSameThread();
    }
}
