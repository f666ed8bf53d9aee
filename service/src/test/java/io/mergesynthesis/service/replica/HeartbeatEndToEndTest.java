package io.mergesynthesis.service.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.Seed;
import io.mergesynthesis.service.testing.TestApp;
import io.mergesynthesis.service.worker.WorkerFixture;
import io.mergesynthesis.testsupport.Wait;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A running replica's own heartbeat: its row names the pool's lease owner, counts its workers, and records the
 * claim of a conflict it worked on; and names itself as the pool names its leases.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class HeartbeatEndToEndTest {

    static final TestApp APP = TestApp.create(ConfigOverride.config("synthesis.workers", "3"),
            ConfigOverride.config("heartbeatInterval", "200ms"));
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theReplicasRowCountsItsWorkersAndRecordsItsLastClaim() throws Exception {
        Jdbi db = APP.database().jdbi();
        UUID org = UUID.randomUUID();
        UUID conflict = Seed.conflict(APP, APP.token(Role.INGEST, org), org, "beat-1", "jira.create_issue");
        Wait.until("the merge", Duration.ofSeconds(30), () -> "done".equals(db.withHandle(h -> h.createQuery(
                "SELECT synthesis_state FROM policy_conflicts WHERE id = :id").bind("id", conflict)
                .mapTo(String.class).one())));

        Wait.until("a beat after the claim", Duration.ofSeconds(30), () -> db.withHandle(h -> h.createQuery(
                "SELECT count(*) FROM replica_heartbeats WHERE last_claim_at IS NOT NULL").mapTo(Long.class).one()) == 1);
        Map<String, Object> row = db.withHandle(h -> h.createQuery("""
                        SELECT replica_id, workers, in_flight, interval_ms, stopped_at IS NULL AS running,
                               beat_at >= last_claim_at AS beat_after_claim
                          FROM replica_heartbeats""").mapToMap().one());
        // The pool's owner name, as leases carry it: the host and a random suffix.
        assertThat((String) row.get("replica_id")).matches(".+-[0-9a-f]{8}");
        assertThat(row.get("workers")).isEqualTo(3);
        assertThat((Integer) row.get("in_flight")).isBetween(0, 3);
        assertThat(row.get("interval_ms")).isEqualTo(200);
        assertThat(row.get("running")).isEqualTo(true);
        assertThat(row.get("beat_after_claim")).isEqualTo(true);
    }
}
