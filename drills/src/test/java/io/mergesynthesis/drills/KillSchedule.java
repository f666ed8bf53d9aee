package io.mergesynthesis.drills;

import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * When a drill kills: a number of kills, each a random pause of at least {@code least} and less than {@code least + spread} after
 * the one before ended, so that they strike a fleet at work at moments it cannot foresee. The moments are the
 * drill's own schedule, not something the product signals, so a scheduler keeps them on a thread of its own and
 * the drill waits for the last kill to be done.
 */
final class KillSchedule {

    /** One kill, the {@code k}th (from 1), run on the schedule's thread. */
    @FunctionalInterface
    interface Kill {
        void strike(int k) throws Exception;
    }

    private final int kills;
    private final Random random;
    private final Duration least;
    private final Duration spread;

    KillSchedule(int kills, Random random, Duration least, Duration spread) {
        if (kills < 1 || least.isNegative() || spread.toMillis() < 1) {
            throw new IllegalArgumentException("a kill schedule needs at least one kill, a least pause of zero or more and a spread of a "
                    + "millisecond or more, got " + kills + " kills after " + least + " plus up to " + spread);
        }
        this.kills = kills;
        this.random = random;
        this.least = least;
        this.spread = spread;
    }

    /** Runs the kills on their schedule; returns once the last is done, or throws what a kill threw. */
    void run(Duration timeout, Kill kill) throws Exception {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "kill-schedule");
            thread.setDaemon(true);
            return thread;
        });
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            scheduleNext(timer, 1, kill, done);
            done.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException("the kills were not all done after " + timeout.toSeconds() + " s", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception failure) {
                throw failure;
            }
            throw (Error) e.getCause();
        } finally {
            timer.shutdownNow();
        }
    }

    private void scheduleNext(ScheduledExecutorService timer, int k, Kill kill, CompletableFuture<Void> done) {
        long pause = least.toMillis() + random.nextInt((int) spread.toMillis());
        timer.schedule(() -> {
            try {
                kill.strike(k);
                if (k == kills) {
                    done.complete(null);
                } else {
                    scheduleNext(timer, k + 1, kill, done);
                }
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        }, pause, TimeUnit.MILLISECONDS);
    }
}
