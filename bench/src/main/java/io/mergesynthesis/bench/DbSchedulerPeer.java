package io.mergesynthesis.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import io.mergesynthesis.harness.Replica;

/**
 * A well-known peer on the same database: db-scheduler draining the same number of one-time tasks that do
 * nothing, with the same thread count and its lock-and-fetch polling (one {@code FOR UPDATE SKIP LOCKED}
 * statement that picks and marks), in this JVM on a plain HikariCP pool. It picks up to {@code lead} tasks per
 * thread (its lock-and-fetch upper limit): one by default, as many as its threads run at once. It pays for no
 * row-level security, no per-row org scope and no event, so the pool is not expected to beat it; the ratio shows
 * what those cost.
 */
final class DbSchedulerPeer {

    private static final String TASK = "bench-noop";
    private static final Duration STALL_LIMIT = Duration.ofSeconds(30);

    /**
     * The table as db-scheduler expects it on PostgreSQL (its documented columns and indexes), created by the
     * benchmark so that the peer needs nothing from the product's migrations.
     */
    private static final String SCHEMA = """
            CREATE TABLE scheduled_tasks (
                task_name            text                     NOT NULL,
                task_instance        text                     NOT NULL,
                task_data            bytea,
                execution_time       timestamp with time zone NOT NULL,
                picked               boolean                  NOT NULL,
                picked_by            text,
                last_success         timestamp with time zone,
                last_failure         timestamp with time zone,
                consecutive_failures integer,
                last_heartbeat       timestamp with time zone,
                version              bigint                   NOT NULL,
                priority             smallint,
                PRIMARY KEY (task_name, task_instance)
            );
            CREATE INDEX scheduled_tasks_execution_time ON scheduled_tasks (execution_time);
            CREATE INDEX scheduled_tasks_last_heartbeat ON scheduled_tasks (last_heartbeat);
            CREATE INDEX scheduled_tasks_priority_execution_time ON scheduled_tasks (priority DESC, execution_time)""";

    private final BenchDatabase db;
    private final int threads;
    private final int lead;

    DbSchedulerPeer(BenchDatabase db, int threads, int lead) {
        this.db = db;
        this.threads = threads;
        this.lead = lead;
    }

    /** A drain of the peer: tasks per second, and the CPU spent by this process and the database meanwhile. */
    record Drained(double perSecond, CpuTime.Spent cpu) {
    }

    /** Tasks per second for {@code rows} tasks, all due before the scheduler starts. */
    Drained drain(int rows) throws SQLException, DrainWatch.Stalled {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS scheduled_tasks");
            s.execute(SCHEMA);
            try (PreparedStatement insert = c.prepareStatement("""
                    INSERT INTO scheduled_tasks (task_name, task_instance, execution_time, picked, version)
                    SELECT ?, 'task-' || g, now() - interval '1 second', false, 1
                    FROM generate_series(1, ?) g""")) {
                insert.setString(1, TASK);
                insert.setInt(2, rows);
                insert.executeUpdate();
            }
            s.execute("VACUUM ANALYZE scheduled_tasks");
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.url());
        config.setUsername(db.user());
        config.setPassword(db.password());
        config.setMaximumPoolSize(threads + 2);
        config.setPoolName("db-scheduler-peer");
        OneTimeTask<Void> task = Tasks.oneTime(TASK).execute((instance, context) -> { });
        try (HikariDataSource dataSource = new HikariDataSource(config)) {
            Scheduler scheduler = Scheduler.create(dataSource, task)
                    .threads(threads)
                    .pollUsingLockAndFetch(0.5, lead)
                    .pollingInterval(Duration.ofSeconds(1))
                    .shutdownMaxWait(Duration.ofSeconds(5))
                    .build();
            CpuTime.Window cpu = CpuTime.ofThisProcess(db).start();
            long start = System.nanoTime();
            scheduler.start();
            try {
                double seconds = awaitEmpty(start);
                return new Drained(rows / seconds, cpu.spent());
            } finally {
                scheduler.stop();
            }
        } finally {
            try (Connection c = db.connect(); Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS scheduled_tasks");
            }
        }
    }

    /** db-scheduler deletes a one-time task once it has run: the drain is over when the table is empty. */
    private double awaitEmpty(long start) throws SQLException, DrainWatch.Stalled {
        try (Connection c = db.connect();
             Statement setUp = c.createStatement();
             PreparedStatement any = c.prepareStatement("SELECT EXISTS (SELECT 1 FROM scheduled_tasks)");
             PreparedStatement count = c.prepareStatement("SELECT count(*) FROM scheduled_tasks")) {
            // As the pool's watcher does: the probe walks an index rather than the deleted tasks' dead rows.
            setUp.execute(DrainWatch.INDEX_ONLY);
            long lastProgress = System.nanoTime();
            long lastCheck = lastProgress;
            long lastRemaining = Long.MAX_VALUE;
            while (true) {
                try (ResultSet rs = any.executeQuery()) {
                    rs.next();
                    if (!rs.getBoolean(1)) {
                        return (System.nanoTime() - start) / 1e9;
                    }
                }
                long now = System.nanoTime();
                if (now - lastCheck > Duration.ofSeconds(5).toNanos()) {
                    lastCheck = now;
                    try (ResultSet rs = count.executeQuery()) {
                        rs.next();
                        long remaining = rs.getLong(1);
                        if (remaining < lastRemaining) {
                            lastRemaining = remaining;
                            lastProgress = now;
                        } else if (now - lastProgress > STALL_LIMIT.toNanos()) {
                            throw new DrainWatch.Stalled(remaining, STALL_LIMIT);
                        }
                    }
                }
                Replica.sleep(50);
            }
        }
    }
}
