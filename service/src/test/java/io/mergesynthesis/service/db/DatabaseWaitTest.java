package io.mergesynthesis.service.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dropwizard.db.DataSourceFactory;
import io.mergesynthesis.service.testing.HandClock;
import io.mergesynthesis.service.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class DatabaseWaitTest {

    /** Fake sleeps, recorded, each moving a hand-moved clock on by its length. */
    private static final class SleepClock {
        final HandClock clock = new HandClock();
        final List<Duration> sleeps = new ArrayList<>();

        void sleep(Duration pause) {
            sleeps.add(pause);
            clock.advance(pause);
        }
    }

    private static RuntimeException full() {
        return new IllegalStateException("migration failed",
                new SQLException("FATAL: sorry, too many clients already", "53300"));
    }

    @Test
    void waitsWithADoublingPauseUntilTheDatabaseTakesTheStep() {
        SleepClock clock = new SleepClock();
        DatabaseWait wait = new DatabaseWait(Duration.ofSeconds(60), clock.clock, clock::sleep);
        AtomicInteger tries = new AtomicInteger();
        String result = wait.get("apply the migrations", () -> {
            if (tries.incrementAndGet() <= 6) {
                throw full();
            }
            return "migrated";
        });
        assertThat(result).isEqualTo("migrated");
        assertThat(clock.sleeps).containsExactly(Duration.ofMillis(250), Duration.ofMillis(500),
                Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4), Duration.ofSeconds(5));
    }

    @Test
    void givesUpOnceTheWaitIsSpentSayingWhy() {
        SleepClock clock = new SleepClock();
        DatabaseWait wait = new DatabaseWait(Duration.ofSeconds(20), clock.clock, clock::sleep);
        assertThatThrownBy(() -> wait.run("apply the migrations", () -> {
            throw full();
        })).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Could not apply the migrations")
                .hasMessageContaining("databaseStartupWait is 20s")
                .hasMessageContaining("too many clients");
        Duration slept = clock.sleeps.stream().reduce(Duration.ZERO, Duration::plus);
        assertThat(slept).isLessThanOrEqualTo(Duration.ofSeconds(20)).isGreaterThan(Duration.ofSeconds(12));
    }

    @Test
    void aFailureThatWaitingCannotMendStopsAtOnce() {
        SleepClock clock = new SleepClock();
        DatabaseWait wait = new DatabaseWait(Duration.ofSeconds(60), clock.clock, clock::sleep);
        RuntimeException badPassword = new IllegalStateException("migration failed",
                new SQLException("FATAL: password authentication failed", "28P01"));
        assertThatThrownBy(() -> wait.run("apply the migrations", () -> {
            throw badPassword;
        })).isSameAs(badPassword);
        assertThat(clock.sleeps).isEmpty();
    }

    @Test
    void noWaitMeansTheFirstFailureStopsTheStart() {
        SleepClock clock = new SleepClock();
        DatabaseWait wait = new DatabaseWait(Duration.ZERO, clock.clock, clock::sleep);
        assertThatThrownBy(() -> wait.run("connect", () -> {
            throw full();
        })).hasMessageContaining("still unavailable");
        assertThat(clock.sleeps).isEmpty();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aRealServerOutOfSlotsForTheLoginIsWaitedFor() throws Exception {
        TestDatabase database = TestDatabase.fresh();
        String role = "waiting_" + UUID.randomUUID().toString().replace("-", "");
        execute(database, "CREATE ROLE " + role + " LOGIN CONNECTION LIMIT 0");
        DataSourceFactory login = database.dataSourceFactory();
        login.setUser(role);
        // The server makes room at the wait's first pause, which only a refused login leads to: the wait has
        // met the full server before it gets in.
        CompletableFuture<Void> freed = new CompletableFuture<>();
        DatabaseWait wait = new DatabaseWait(Duration.ofSeconds(30), Clock.systemUTC(), pause -> {
            if (!freed.isDone()) {
                try {
                    execute(database, "ALTER ROLE " + role + " CONNECTION LIMIT -1");
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
                freed.complete(null);
            }
        });
        wait.run("connect to the database", () -> Databases.ping(login));
        assertThat(freed).isDone();
    }

    private static void execute(TestDatabase database, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(database.url(), database.user(), "");
             Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
