package io.mergesynthesis.service.health;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.health.HealthCheck.Result;
import io.mergesynthesis.service.worker.WorkerFixture;
import io.mergesynthesis.service.worker.WorkerFixture.Replica;
import io.mergesynthesis.synthesis.Router;
import io.mergesynthesis.testsupport.Wait;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class PoolHealthCheckTest {

    @Test
    void aDisabledPoolIsHealthyAndSaysSo() {
        Result result = PoolHealthCheck.disabled().execute();
        assertThat(result.isHealthy()).isTrue();
        assertThat(result.getMessage()).contains("disabled");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void healthyWhileRunningUnhealthyWhenAWorkerDiesOrThePoolStops() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture()) {
            Router broken = (functionKey, orgId) -> {
                throw new AssertionError("a bug far outside any attempt's failure handling");
            };
            Replica replica = fixture.replica(WorkerFixture.settings("health"), WorkerFixture.stub(), broken);
            PoolHealthCheck check = PoolHealthCheck.of(replica.pool());
            assertThat(check.execute().isHealthy()).as("not started yet").isFalse();

            replica.pool().start();
            assertThat(check.execute().isHealthy()).isTrue();

            fixture.insertConflict("jira.create_issue");
            Wait.until("the dead worker reported", Duration.ofSeconds(20),
                    () -> !check.execute().isHealthy());
            assertThat(check.execute().getMessage()).contains("worker thread(s) died");

            replica.pool().stop();
            assertThat(check.execute().getMessage()).contains("stopping");
        }
    }
}
