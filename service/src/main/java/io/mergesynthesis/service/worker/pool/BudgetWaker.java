package io.mergesynthesis.service.worker.pool;

import io.dropwizard.lifecycle.Managed;
import io.mergesynthesis.service.db.DatabaseUnavailable;
import io.mergesynthesis.service.db.OrgSynthesisSettings;
import io.mergesynthesis.service.db.ScopedTransactions;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets conflicts out of {@code waiting_budget} when their org may spend again without anyone raising its budget
 * through the API: a new month began, or the budget was changed in the database directly. A budget raised through
 * the API resumes its org's conflicts at once; this is the safety net, every {@code every}. Its statement reads
 * only the parked rows (a partial index holds them), so it costs next to nothing while none wait.
 */
public final class BudgetWaker implements Managed {

    private static final Logger LOG = LoggerFactory.getLogger(BudgetWaker.class);

    private final ScopedTransactions transactions;
    private final Duration every;
    private ScheduledExecutorService timer;

    public BudgetWaker(ScopedTransactions transactions, Duration every) {
        this.transactions = transactions;
        this.every = every;
    }

    @Override
    public synchronized void start() {
        timer = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "synthesis-budget-waker");
            thread.setDaemon(true);
            return thread;
        });
        timer.scheduleWithFixedDelay(this::wake, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void stop() {
        if (timer != null) {
            timer.shutdownNow();
        }
    }

    /** One pass: how many conflicts went back to pending. */
    public int wake() {
        try {
            int resumed = transactions.crossTenant(handle -> OrgSynthesisSettings.resumeWaiting(handle,
                    Optional.empty()));
            if (resumed > 0) {
                LOG.info("{} conflicts waiting for a budget may be synthesized again", resumed);
            }
            return resumed;
        } catch (RuntimeException e) {
            // The next pass tries again; the pool's own logs already tell of a database outage.
            LOG.debug("Could not look for conflicts waiting for a budget: {}", DatabaseUnavailable.describe(e));
            return 0;
        }
    }
}
