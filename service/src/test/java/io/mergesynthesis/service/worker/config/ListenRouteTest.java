package io.mergesynthesis.service.worker.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.ConfigOverride;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.ConflictJson;
import io.mergesynthesis.service.testing.TestApp;
import io.mergesynthesis.testsupport.Wait;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Behind a transaction pooler ({@code databasePooler: transaction}) the worker pool listens on the listen URL
 * when one is given, and otherwise holds no listening connection and finds new conflicts by polling. The poll
 * interval is far longer than the test, so only a notification gets a new conflict merged in time. (The tests'
 * database has no pooler in front; the drills run the same through a real PgBouncer.)
 */
class ListenRouteTest {

    private static final String NEVER_POLLS = "10m";
    private static final String LISTENER = "merge-synthesis-listener";

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void withAListenUrlANewConflictIsMergedAtOnceOverTheListenersOwnConnection() throws Exception {
        AtomicReference<String> listenUrl = new AtomicReference<>();
        TestApp app = TestApp.create(
                ConfigOverride.config("databasePooler", "transaction"),
                ConfigOverride.config("synthesis.pollInterval", NEVER_POLLS),
                ConfigOverride.config("databaseListenUrl", listenUrl::get));
        listenUrl.set(app.database().url());
        app.extension().before();
        try {
            Wait.until("a listening connection", Duration.ofSeconds(20), () -> listeners(app) == 1);
            UUID conflict = ingest(app);
            Wait.until("the new conflict merged", Duration.ofSeconds(20), () -> "done".equals(state(app, conflict)));
        } finally {
            app.extension().after();
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void withoutAListenUrlThePoolHoldsNoListeningConnectionAndWaitsForItsPoll() throws Exception {
        TestApp app = TestApp.create(
                ConfigOverride.config("databasePooler", "transaction"),
                ConfigOverride.config("synthesis.pollInterval", NEVER_POLLS));
        app.extension().before();
        try {
            UUID conflict = ingest(app);
            // That no notification reaches a pool which never polls shows only as time passing without a merge:
            // with no notification and no poll, its claim loop makes no rounds whose count a test could wait for.
            Thread.sleep(2_000);
            assertThat(listeners(app)).as("listening connections").isZero();
            assertThat(state(app, conflict)).as("no notification reached the pool").isEqualTo("pending");
        } finally {
            app.extension().after();
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void withoutAPoolerThePoolListensOnTheDatabaseUrl() throws Exception {
        TestApp app = TestApp.create(ConfigOverride.config("synthesis.pollInterval", NEVER_POLLS));
        app.extension().before();
        try {
            Wait.until("a listening connection", Duration.ofSeconds(20), () -> listeners(app) == 1);
            UUID conflict = ingest(app);
            Wait.until("the new conflict merged", Duration.ofSeconds(20), () -> "done".equals(state(app, conflict)));
        } finally {
            app.extension().after();
        }
    }

    private static UUID ingest(TestApp app) {
        UUID org = UUID.randomUUID();
        HttpResponse<String> response = app.post(app.token(Role.INGEST, org), "/v1/conflicts",
                ConflictJson.report(org, "listen-route-" + UUID.randomUUID()));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
        return app.database().jdbi().withHandle(handle -> handle.createQuery(
                "SELECT id FROM policy_conflicts WHERE org_id = :org").bind("org", org).mapTo(UUID.class).one());
    }

    private static String state(TestApp app, UUID conflict) {
        return app.database().jdbi().withHandle(handle -> handle.createQuery(
                "SELECT synthesis_state FROM policy_conflicts WHERE id = :id").bind("id", conflict)
                .mapTo(String.class).one());
    }

    /** Sessions of this test's database that the pool's listener opened. */
    private static int listeners(TestApp app) {
        return app.database().jdbi().withHandle(handle -> handle.createQuery("""
                SELECT count(*) FROM pg_stat_activity
                WHERE datname = current_database() AND application_name = :name""")
                .bind("name", LISTENER).mapTo(Integer.class).one());
    }

}
