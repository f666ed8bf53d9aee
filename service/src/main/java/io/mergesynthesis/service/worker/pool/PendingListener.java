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
 * again, since notifications sent meanwhile were lost. A connection that outlived an outage the claim loop met
 * is made anew once the database is back (see {@link #databaseBack()}).
 */
public final class PendingListener {

    private static final Logger LOG = LoggerFactory.getLogger(PendingListener.class);
    private static final int RECEIVE_TIMEOUT_MILLIS = 500;
    static final Duration FIRST_RETRY = Duration.ofMillis(200);
    static final Duration LAST_RETRY = Duration.ofSeconds(30);

    private final DedicatedConnection opener;
    private final Waiter loop;
    private final Runnable reported;
    private final Waiter retryPause = new Waiter();
    private static final int NOT_LOST = -1;

    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger heard = new AtomicInteger();
    /** Which connection ({@link #connections} count) was held when the database was last found away. */
    private final AtomicInteger heldWhenLost = new AtomicInteger(NOT_LOST);
    /** Set while {@link #databaseBack()} closes a connection on purpose, so it is not taken for a failure. */
    private volatile boolean replacing;
    private final FailureStreak failures;
    private volatile boolean running;
    private volatile Connection current;
    private Thread thread;

    /** @param reported told of every notification before the loop is woken: new conflicts were reported */
    public PendingListener(DedicatedConnection opener, Waiter loop, Runnable reported, Clock clock) {
        this.opener = opener;
        this.loop = loop;
        this.reported = reported;
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

    /** How many times notifications have been heard, each time after the claims were told of them. */
    int notificationsHeard() {
        return heard.get();
    }

    /**
     * The claim loop found the database unavailable. Notes which connection the listener held then, for
     * {@link #databaseBack()}; later calls during the same outage change nothing.
     */
    void databaseLost() {
        heldWhenLost.compareAndSet(NOT_LOST, current == null ? 0 : connections.get());
    }

    /**
     * The claim loop finds the database answering again. A pending reconnection is retried at once, which may
     * be well before this listener's own doubling pause runs out. A connection the listener still holds from
     * before the outage is given up and made anew: the server behind the URL may have changed meanwhile (a
     * standby promoted), and the old one may never close its end (a frozen host, a partition), which would
     * leave this connection waiting for notifications that can no longer come. A connection made during the
     * outage is kept.
     */
    void databaseBack() {
        int heldThen = heldWhenLost.getAndSet(NOT_LOST);
        Connection held = current;
        if (heldThen > 0 && held != null && connections.get() == heldThen) {
            replacing = true;
            closeQuietly(held);
        }
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
                        reported.run();
                        heard.incrementAndGet();
                        loop.wake();
                    }
                }
            } catch (SQLException | RuntimeException e) {
                if (!running) {
                    return;
                }
                if (replacing) {
                    replacing = false;
                    LOG.info("Listening for new conflicts on a new connection: the database was away, and the "
                            + "server behind its URL may have changed");
                    continue;
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
