package io.mergesynthesis.service.health;

import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import io.prometheus.client.Collector;
import io.prometheus.client.GaugeMetricFamily;
import java.util.List;
import java.util.Map;

/**
 * {@code health_check_healthy{check}}: each registered health check's result at scrape time, 1 healthy and 0 not,
 * so that an alert can fire on the database, the worker pool or a provider's circuit from the metrics alone.
 * The label takes only the registered checks' names, a handful fixed at start-up.
 */
public final class HealthCheckGauges extends Collector {

    private final HealthCheckRegistry checks;

    public HealthCheckGauges(HealthCheckRegistry checks) {
        this.checks = checks;
    }

    @Override
    public List<MetricFamilySamples> collect() {
        GaugeMetricFamily healthy = new GaugeMetricFamily("health_check_healthy",
                "Each health check of /healthcheck, run at scrape time: 1 healthy, 0 unhealthy.", List.of("check"));
        for (Map.Entry<String, HealthCheck.Result> check : checks.runHealthChecks().entrySet()) {
            healthy.addMetric(List.of(check.getKey()), check.getValue().isHealthy() ? 1 : 0);
        }
        return List.of(healthy);
    }
}
