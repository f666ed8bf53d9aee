package io.mergesynthesis.service.worker;

import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Unpooled connections to a test database that the test can have refused, the way a stopped server or one with
 * every connection slot taken refuses them: all of them for a while, or the next few opened by threads whose
 * names contain a given part (the pool names its threads "...-claim", "...-reader", "...-worker-N",
 * "...-completer-N"). Each transaction opens a connection of its own, so a refusal hits exactly one step.
 */
final class FlakyConnections {

    private final TestDatabase database;
    private final AtomicInteger refused = new AtomicInteger();
    private final AtomicInteger toRefuse = new AtomicInteger();
    private volatile boolean down;
    private volatile List<String> threads = List.of();

    FlakyConnections(TestDatabase database) {
        this.database = database;
    }

    ScopedTransactions transactions() {
        return ScopedTransactions.on(this::open);
    }

    /** Refuses every connection until {@link #up()}, as a stopped server does. */
    void down() {
        down = true;
    }

    void up() {
        down = false;
    }

    /** Refuses the next {@code count} connections opened by threads whose names contain one of {@code parts}. */
    void refuseNext(int count, String... parts) {
        threads = List.of(parts);
        toRefuse.set(count);
    }

    /** Connections refused so far. */
    int refused() {
        return refused.get();
    }

    private Connection open() throws SQLException {
        if (down) {
            refused.incrementAndGet();
            throw new SQLException("Connection to localhost refused (the test stopped the database)", "08001");
        }
        String thread = Thread.currentThread().getName();
        if (threads.stream().anyMatch(thread::contains) && toRefuse.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            refused.incrementAndGet();
            throw new SQLException("FATAL: sorry, too many clients already", "53300");
        }
        return DriverManager.getConnection(database.url(), database.user(), "");
    }
}
