package io.mergesynthesis.service.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.TestApp;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** The admin port's /metrics of a running service carries the JVM's, the server's and the pool's figures. */
@ExtendWith(DropwizardExtensionsSupport.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServerMetricsTest {

    static final TestApp APP = TestApp.apiOnly();
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    @Test
    void metricsCarryTheJvmTheHttpResponsesByStatusAndTheDatabasePool() {
        String admin = APP.token(Role.ORG_ADMIN, UUID.randomUUID());
        assertThat(APP.get(admin, "/v1/conflicts").statusCode()).isEqualTo(200);
        assertThat(APP.get(null, "/v1/conflicts").statusCode()).isEqualTo(401);

        HttpResponse<String> scraped = APP.getAdmin("/metrics");
        assertThat(scraped.statusCode()).isEqualTo(200);
        List<String> samples = scraped.body().lines().filter(line -> !line.startsWith("#")).toList();
        Set<String> names = new TreeSet<>();
        samples.forEach(line -> names.add(line.replaceAll("[{ ].*", "")));

        assertThat(names).as("the JVM").contains("jvm_memory_bytes_used", "jvm_memory_pool_bytes_used",
                "jvm_gc_collection_seconds_count", "jvm_threads_current", "jvm_threads_state",
                "jvm_classes_currently_loaded", "process_cpu_seconds_total");
        assertThat(samples).anyMatch(line -> line.startsWith("jvm_memory_bytes_used{area=\"heap\",}"));
        assertThat(names).as("responses by status class").anyMatch(name -> name.endsWith("_2xx_responses_total"))
                .anyMatch(name -> name.endsWith("_4xx_responses_total"))
                .anyMatch(name -> name.endsWith("_5xx_responses_total"));
        assertThat(value(samples, "_4xx_responses_total")).as("the refused request counted").isPositive();
        assertThat(names).as("the database pool").anyMatch(name -> name.contains("postgresql_active"))
                .anyMatch(name -> name.contains("postgresql_idle"))
                .anyMatch(name -> name.contains("postgresql_size"));
        // The service's own series are still there, under their names.
        assertThat(names).contains("health_check_healthy");
    }

    private static double value(List<String> samples, String suffix) {
        return samples.stream().filter(line -> line.split(" ")[0].endsWith(suffix))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
    }
}
