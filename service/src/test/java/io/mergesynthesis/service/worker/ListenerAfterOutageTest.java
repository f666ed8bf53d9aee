package io.mergesynthesis.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.db.ConflictStore;
import io.mergesynthesis.service.worker.config.WorkerWiring;
import io.mergesynthesis.service.worker.pool.SynthesisPool;
import io.mergesynthesis.synthesis.StubRouter;
import io.mergesynthesis.testsupport.Wait;
import io.prometheus.client.CollectorRegistry;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * After an outage the claim loop met, the listener gives up a connection it held since before the outage and
 * listens on a new one: after a failover the old connection may lead to a server that will never send another
 * notification, nor close its end. A connection the listener made during the outage is kept. The claim loop's
 * connections are refused on demand while the listener's own connection stays up, as it does when the old
 * primary freezes instead of closing; the poll interval is far longer than the test, so only a notification
 * gets a conflict merged in time.
 */
class ListenerAfterOutageTest {

    private static final Duration NEVER_POLLS = Duration.ofMinutes(10);

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aConnectionHeldThroughAnOutageIsMadeAnewWhenTheDatabaseIsBack() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            FlakyConnections connections = new FlakyConnections(fixture.database);
            SynthesisPool pool = pool(fixture, connections, "held-through");
            pool.start();
            try {
                Wait.until("listening", Duration.ofSeconds(10), () -> pool.listenConnectionsMade() == 1);

                connections.down();
                UUID during = insertAndNotify(fixture);
                Wait.until("a claim refused", Duration.ofSeconds(10), () -> connections.refused() > 0);
                assertThat(pool.listenConnectionsMade()).as("connections while the claims fail").isEqualTo(1);
                connections.up();

                Wait.until("the conflict of the outage done", Duration.ofSeconds(15),
                        () -> "done".equals(fixture.column(during, "synthesis_state")));
                Wait.until("listening on a new connection", Duration.ofSeconds(10),
                        () -> pool.listenConnectionsMade() == 2);
                UUID after = insertAndNotify(fixture);
                Wait.until("a conflict after the outage done", Duration.ofSeconds(15),
                        () -> "done".equals(fixture.column(after, "synthesis_state")));
                assertThat(pool.listenConnectionsMade()).as("connections made in all").isEqualTo(2);
            } finally {
                pool.stop();
            }
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aConnectionMadeDuringTheOutageIsKept() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            FlakyConnections connections = new FlakyConnections(fixture.database);
            SynthesisPool pool = pool(fixture, connections, "made-during");
            pool.start();
            try {
                Wait.until("listening", Duration.ofSeconds(10), () -> pool.listenConnectionsMade() == 1);

                connections.down();
                UUID during = insertAndNotify(fixture);
                Wait.until("a claim refused", Duration.ofSeconds(10), () -> connections.refused() > 0);
                // The listener's own connection drops during the outage, and it reconnects by itself.
                int killed = fixture.admin.withHandle(handle -> handle.createQuery("""
                                SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                                WHERE query = 'LISTEN %s' AND pid <> pg_backend_pid()"""
                                .formatted(ConflictStore.PENDING_CHANNEL))
                        .mapTo(Integer.class).one());
                assertThat(killed).isEqualTo(1);
                Wait.until("listening again", Duration.ofSeconds(15),
                        () -> pool.listenConnectionsMade() == 2);
                connections.up();

                Wait.until("the conflict of the outage done", Duration.ofSeconds(15),
                        () -> "done".equals(fixture.column(during, "synthesis_state")));
                assertThat(pool.listenConnectionsMade()).as("the connection made during the outage kept")
                        .isEqualTo(2);
                // Only a notification can wake a pool that never polls: the next conflict done shows the kept
                // connection still delivers, and that nothing replaced it meanwhile.
                UUID after = insertAndNotify(fixture);
                Wait.until("a conflict after the outage done", Duration.ofSeconds(15),
                        () -> "done".equals(fixture.column(after, "synthesis_state")));
                assertThat(pool.listenConnectionsMade()).as("the connection made during the outage still kept")
                        .isEqualTo(2);
            } finally {
                pool.stop();
            }
        }
    }

    /** A pool whose claims and stores go through {@code connections}, listening straight to the database. */
    private static SynthesisPool pool(WorkerFixture fixture, FlakyConnections connections, String owner) {
        return WorkerWiring.pool(WorkerFixture.settings(owner).listen(true).pollInterval(NEVER_POLLS).build(),
                        connections.transactions(), WorkerFixture.stub(), new StubRouter(),
                        new SynthesisMetrics(new CollectorRegistry(true)))
                .clock(WorkerFixture.FIXED)
                .listenConnection(() -> DriverManager.getConnection(fixture.database.url(),
                        fixture.database.user(), ""))
                .build();
    }

    private static UUID insertAndNotify(WorkerFixture fixture) {
        UUID id = fixture.insertConflict("jira.create_issue");
        fixture.admin.useHandle(ConflictStore::notifyPending);
        return id;
    }
}
