package io.mergesynthesis.service.health;

import com.codahale.metrics.MetricFilter;
import com.codahale.metrics.MetricRegistry;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.dropwizard.DropwizardExports;
import io.prometheus.client.hotspot.DefaultExports;

/**
 * What every Dropwizard and Prometheus user looks for beside the service's own series: the JVM's memory, garbage
 * collection, threads and class loading (the Prometheus client's own JVM collectors), and what Dropwizard already
 * measures in its metric registry, bridged as it is: Jetty's requests and responses by status class, the
 * database pool's connections, the server's thread pool and the resources' timers. Each of these is named per
 * handler, pool or resource method, never per request, so their number is fixed by the code.
 */
public final class ServerMetrics {

    /** Dropwizard's own JVM gauges repeat what the Prometheus collectors give under their usual names. */
    static final MetricFilter NOT_THE_JVM = (name, metric) -> !name.startsWith("jvm.");

    private ServerMetrics() {
    }

    public static void register(CollectorRegistry registry, MetricRegistry dropwizard) {
        DefaultExports.register(registry);
        new DropwizardExports(dropwizard, NOT_THE_JVM).register(registry);
    }
}
