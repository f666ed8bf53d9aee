package io.mergesynthesis.service.health;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.Seed;
import io.mergesynthesis.service.testing.TestApp;
import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.Outage;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.testsupport.Wait;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Grafana dashboard and the Prometheus alert rules under deploy/ against a live server: every metric their
 * queries name is one its /metrics exports. And the readiness the manifests probe stays up while a provider's
 * circuit is open, when /healthcheck does not.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DeployQueriesTest {

    static final StandInProvider STAND_IN = TestApp.standIn(new Behaviour());
    static final TestApp APP = TestApp.onStandIn(STAND_IN);
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    static final Path DEPLOY = Path.of(System.getProperty("golden.dir")).getParent().getParent().resolve("deploy");

    @AfterAll
    static void stopStandIn() {
        STAND_IN.close();
    }

    @Test
    void everyDashboardQueryNamesAnExportedMetric() throws IOException {
        JsonNode dashboard = new ObjectMapper().readTree(DEPLOY.resolve("grafana/merge-synthesis.json").toFile());
        List<String> queries = new ArrayList<>();
        dashboard.findValues("expr").forEach(expr -> queries.add(expr.asText()));
        dashboard.findValues("definition").forEach(definition -> queries.add(definition.asText()));
        assertThat(queries).hasSizeGreaterThan(15);
        assertNamesExported(queries);
    }

    @Test
    void everyAlertRuleNamesAnExportedMetric() throws IOException {
        JsonNode rules = new ObjectMapper(new YAMLFactory()).readTree(DEPLOY.resolve("prometheus/alerts.yml").toFile());
        List<String> queries = new ArrayList<>();
        rules.findValues("expr").forEach(expr -> queries.add(expr.asText()));
        assertThat(queries).hasSize(7);
        assertNamesExported(queries);
    }

    @Test
    void readinessStaysUpWhileAProviderCircuitIsOpen() throws Exception {
        assertThat(APP.getAdmin("/ready").statusCode()).isEqualTo(200);
        String platform = APP.token(Role.PLATFORM, null);
        UUID org = UUID.randomUUID();
        STAND_IN.outage(Outage.STATUS_503);
        try {
            for (int i = 0; i < 20; i++) {
                Seed.conflict(APP, platform, org, "readiness-" + i, "jira.create_issue");
            }
            Wait.until("the provider's circuit to open", Duration.ofSeconds(30),
                    () -> APP.getAdmin("/healthcheck").statusCode() != 200);
            assertThat(APP.getAdmin("/healthcheck").body()).contains("llm-standin", "circuit open");
            assertThat(APP.getAdmin("/ready").statusCode()).isEqualTo(200);
            assertThat(APP.getAdmin("/ready").body()).contains("\"postgresql\":{\"healthy\":true}", "\"ready\":true");
            assertThat(APP.getAdmin("/metrics").body()).contains("health_check_healthy{check=\"llm-standin\",} 0.0",
                    "health_check_healthy{check=\"postgresql\",} 1.0");
        } finally {
            STAND_IN.outage(Outage.NONE);
        }
    }

    private static void assertNamesExported(List<String> queries) {
        Set<String> exported = PromQlNames.exported(APP.getAdmin("/metrics").body());
        Set<String> missing = new TreeSet<>();
        for (String query : queries) {
            Set<String> named = PromQlNames.metricsIn(query);
            assertThat(named).as("metrics named in " + query).isNotEmpty();
            named.stream().filter(name -> !exported.contains(name)).forEach(missing::add);
        }
        assertThat(missing).as("metrics the queries name that /metrics does not export").isEmpty();
    }
}
