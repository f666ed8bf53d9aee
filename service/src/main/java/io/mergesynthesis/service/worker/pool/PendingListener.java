package io.mergesynthesis.service.worker.pool;

import io.mergesynthesis.service.db.ConflictStore;
import io.mergesynthesis.service.worker.FailureStreak;
import io.mergesynthesis.service.worker.RetryPause;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Listens on {@link ConflictStore#PENDING_CHANNEL} over a dedicated connection and wakes the claim loop when
 * ingest announces new conflicts. Waiting for a notification sends nothing to the server, so an idle replica
 * costs the database only its poll. If the connection drops, it reconnects with a doubling delay (cut short when
 * the claim loop finds the database back), logging the outage in a few lines, and wakes the loop once connected
 * again, since notifications sent meanwhile were lost.
 */
public final class PendingListener {

    private static final Logger LOG = LoggerFactory.getLogger(PendingListener.class);
    private static final int RECEIVE_TIMEOUT_MILLIS = 500;
    static final Duration FIRST_RETRY = Duration.ofMillis(200);
    static final Duration LAST_RETRY = Duration.ofSeconds(30);

    private final DedicatedConnection opener;
    private final Waiter loop;
    private final Waiter retryPause = new Waiter();
    private final AtomicInteger connections = new AtomicInteger();
    private final FailureStreak failures;
    private volatile boolean running;
    private volatile Connection current;
    private Thread thread;

    public PendingListener(DedicatedConnection opener, Waiter loop, Clock clock) {
        this.opener = opener;
        this.loop = loop;
        this.failures = new FailureStreak(LOG, "Listening for new conflicts (polling covers for it meanwhile)",
                clock);
    }

    void start(String threadName) {
        running = true;
        thread = new Thread(this::listen, threadName);
        thread.setDaemon(true);
        thread.start();
    }

    void stop() throws InterruptedException {
        running = false;
        retryPause.wake();
        closeQuietly(current);
        if (thread != null) {
            thread.join(Duration.ofSeconds(5).toMillis());
        }
    }

    /** How many times a listening connection has been established; for health and tests. */
    int connectionsMade() {
        return connections.get();
    }

    /**
     * Retries at once if a reconnection is pending: the claim loop calls this when the database answers
     * again, which may be well before this listener's own doubling pause runs out.
     */
    void reconnectNow() {
        retryPause.wake();
    }

    private void listen() {
        RetryPause pause = new RetryPause(FIRST_RETRY, LAST_RETRY);
        while (running) {
            try (Connection connection = opener.open()) {
                current = connection;
                try (Statement statement = connection.createStatement()) {
                    statement.execute("LISTEN " + ConflictStore.PENDING_CHANNEL);
                }
                connections.incrementAndGet();
                pause.reset();
                failures.succeeded();
                loop.wake();
                PGConnection pg = connection.unwrap(PGConnection.class);
                while (running) {
                    PGNotification[] received = pg.getNotifications(RECEIVE_TIMEOUT_MILLIS);
                    if (received != null && received.length > 0) {
                        loop.wake();
                    }
                }
            } catch (SQLException | RuntimeException e) {
                if (!running) {
                    return;
                }
                Duration retry = pause.next();
                failures.failed(e, retry);
                try {
                    retryPause.await(retry);
                } catch (InterruptedException interrupted) {
                    return;
                }
            } finally {
                current = null;
            }
        }
    }

    private static void closeQuietly(Connection connection) {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // closing only to unblock the listening thread
            }
        }
    }
}
