package io.mergesynthesis.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mergesynthesis.harness.Product;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the benchmark's quick mode end to end, on an embedded PostgreSQL with replicas of the service jar the
 * reactor built just before this module, and checks that it reports every figure (a value, or skipped with a
 * reason), that the provider-bound and big-tenants steps ran and printed their figures with their targets, and
 * that it draws the chart. It asserts nothing about speed.
 */
class BenchSmokeTest {

    /** The keys of results.json that readers and dashboards rely on. */
    private static final List<String> FIGURES = List.of(
            "drain_1_replica_per_s", "drain_3_replicas_per_s", "ceiling_per_s", "pool_to_ceiling_ratio",
            "ceiling_4_in_flight_per_s", "pool_to_ceiling_4_in_flight_ratio",
            "db_scheduler_per_s", "pool_to_db_scheduler_ratio", "pickup_latency_p50_ms", "pickup_latency_p99_ms",
            "scale_pool_largest_to_smallest_ratio", "scale_ceiling_largest_to_smallest_ratio",
            "idle_queries_per_s", "slow_synth_per_s", "slow_synth_target_per_s", "slow_synth_peak_connections",
            "slow_synth_mean_connections", "inbox_p50_ms", "inbox_p99_ms", "export_events_per_s",
            "export_heap_min_mib", "export_heap_max_mib", "recovery_latency_p50_ms", "recovery_latency_p99_ms",
            "drain_1_replica_jvm_cpu_ms_per_conflict", "drain_1_replica_postgres_cpu_ms_per_conflict",
            "db_scheduler_jvm_cpu_ms_per_task", "db_scheduler_postgres_cpu_ms_per_task");

    @Test
    // A bound on a hang, not a speed check: on a 2-core machine shared with other builds, the quick run of every
    // step (provider-bound and worker-scaling rows included) has needed more than eight minutes.
    @Timeout(value = 14, unit = TimeUnit.MINUTES)
    void quickRunReportsEveryFigureAndDrawsTheScaleChart(@TempDir Path out) throws Exception {
        Path root = Path.of("..").toAbsolutePath().normalize();
        if (!Files.isRegularFile(root.resolve(Product.JAR))) {
            fail("the smoke test runs " + Product.JAR + " from the checkout (" + root + "), and it is not "
                    + "there: build it first (mvn -B verify from the root builds it before this module)");
        }

        java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        int status = BenchMain.run(new String[] {"--quick", "--out", out.toString(), "--product-root",
                root.toString()}, new java.io.PrintStream(new Tee(System.out, printed), true,
                java.nio.charset.StandardCharsets.UTF_8));

        JsonNode results = new ObjectMapper().readTree(out.resolve("results.json").toFile());
        assertThat(results.get("errors")).as("steps that failed").isEmpty();
        assertThat(status).isZero();
        JsonNode figures = results.get("figures");
        for (String key : FIGURES) {
            JsonNode figure = figures.get(key);
            assertThat(figure).as(key).isNotNull();
            boolean measured = figure.has("value") && figure.get("value").isNumber();
            boolean skipped = figure.has("skipped") && !figure.get("skipped").asText().isBlank();
            assertThat(measured || skipped).as(key + " has a value or a reason it was skipped: " + figure).isTrue();
        }
        // The ceiling needs nothing but the schema, so the quick run always measures it.
        assertThat(figures.get("ceiling_per_s").get("value").asDouble()).isPositive();
        assertThat(figures.get("ceiling_4_in_flight_per_s").get("value").asDouble()).isPositive();
        assertThat(results.get("scale")).isNotEmpty();

        // The provider-bound step ran: every scenario, one replica and three, has its figures, and the table
        // printed each with its target and a verdict. Whether a target was met is for the figures, not this test.
        String table = printed.toString(java.nio.charset.StandardCharsets.UTF_8);
        for (String scenario : List.of("l20_t50ms", "l50_t2s", "l200_t500ms", "l20_t50ms_unstated")) {
            for (String replicas : List.of("1_replica", "3_replicas")) {
                for (String kind : List.of("merged_per_s", "to_bound_ratio", "rate_limited_share",
                        "uncounted_hand_backs", "attempts_lost", "mean_connections", "peak_connections",
                        "settled_concurrency")) {
                    String key = "provider_" + scenario + "_" + replicas + "_" + kind;
                    JsonNode figure = figures.get(key);
                    assertThat(figure).as(key).isNotNull();
                    assertThat(figure.has("value")).as(key + " measured: " + figure).isTrue();
                    assertThat(table).as("the printed table").contains(figure.get("label").asText());
                }
                JsonNode merged = figures.get("provider_" + scenario + "_" + replicas + "_merged_per_s");
                assertThat(merged.get("verdict").asText()).as(scenario).isIn("MET", "MISSED");
                assertThat(merged.get("target").asText()).as(scenario).startsWith("at least");
            }
        }
        assertThat(table).containsPattern(
                "Provider L=20/s T=50ms, 1 replica: merged .*target at least .*: (MET|MISSED)");

        // The worker-scaling step ran its largest worker count (the quick run skips the others, saying so).
        for (String kind : List.of("merged_per_s", "to_bound_ratio", "transactions_per_merge", "heap_min_mib",
                "heap_max_mib")) {
            JsonNode figure = figures.get("workers_128_" + kind);
            assertThat(figure).as(kind).isNotNull();
            assertThat(figure.has("value")).as("workers_128_" + kind + " measured: " + figure).isTrue();
            assertThat(figures.get("workers_4_" + kind).get("skipped").asText()).contains("--quick");
        }
        assertThat(table).containsPattern("Workers 128, T=2s: merged .*target at least .*: (MET|MISSED)");

        // The batch lane needs a replica of its own and a batch delay: the smoke run leaves it to --batch-lane --quick.
        assertThat(figures.get("batch_lane_batch_to_interactive_cost_ratio").get("skipped").asText())
                .contains("--batch-lane --quick");

        // The latency figures are measured on a durable database and printed with their targets.
        assertThat(table).contains("synchronous_commit=on (durable)");
        assertThat(table).containsPattern("Pickup latency, idle pool, p50 .*target at most 20 .*: (MET|MISSED)");
        assertThat(table).containsPattern("Pickup latency, idle pool, p99 .*target at most 60 .*: (MET|MISSED)");
        // The hot path is held to db-scheduler's rate on the same database and thread count.
        assertThat(table).containsPattern("Pool \\(1 replica\\) / db-scheduler .*target at least 1 .*: (MET|MISSED)");
        assertThat(table).containsPattern("Recovery: lease expiry .* p99 .*target at most 2000 .*: (MET|MISSED)");
        assertThat(figures.get("recovery_latency_p99_ms").has("value")).isTrue();
        // CPU per conflict: the replica's JVM always; PostgreSQL's where /proc shows the embedded server.
        assertThat(figures.get("drain_1_replica_jvm_cpu_ms_per_conflict").get("value").asDouble()).isPositive();
        if (Files.isDirectory(Path.of("/proc"))) {
            assertThat(figures.get("drain_1_replica_postgres_cpu_ms_per_conflict").get("value").asDouble())
                    .isPositive();
        }

        // The big-tenants step ran on its smoke-sized database: a load time, every read's p50 and p95, the p95s
        // printed with their targets and verdicts.
        assertThat(figures.get("tenants_load_s").get("value").asDouble()).isPositive();
        for (String tenant : List.of("big_org", "fleet_org")) {
            for (String read : List.of("api_first_page", "api_inbox_status", "api_synthesis_state", "api_action",
                    "api_target_prefix", "api_policy_prefix", "api_search_nearly_all",
                    "api_search_shared_trigrams", "web_inbox", "web_inbox_filtered", "web_inbox_oldest",
                    "usage", "pickup")) {
                String key = "tenants_" + tenant + "_" + read + "_p95_ms";
                assertThat(figures.get(key).has("value")).as(key + " measured: " + figures.get(key)).isTrue();
                assertThat(figures.get(key).get("verdict").asText()).as(key).isIn("MET", "MISSED");
            }
        }
        assertThat(figures.get("tenants_every_org_operator_p95_ms").has("value")).isTrue();
        assertThat(figures.get("tenants_every_org_export_events_per_s").get("value").asDouble()).isPositive();
        assertThat(table).containsPattern(
                "Big tenants, the big org: GET /v1/conflicts, first page, p95 .*target at most 50 .*: (MET|MISSED)");

        Path chart = out.resolve("scale.png");
        assertThat(chart).exists();
        byte[] head = Files.readAllBytes(chart);
        assertThat(head.length).isGreaterThan(1_000);
        assertThat(new String(head, 1, 3, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("PNG");
    }

    /** Writes to two streams: the test's output, and a buffer the test reads back. */
    private static final class Tee extends java.io.OutputStream {
        private final java.io.OutputStream first;
        private final java.io.OutputStream second;

        Tee(java.io.OutputStream first, java.io.OutputStream second) {
            this.first = first;
            this.second = second;
        }

        @Override
        public void write(int b) throws java.io.IOException {
            first.write(b);
            second.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws java.io.IOException {
            first.write(b, off, len);
            second.write(b, off, len);
        }

        @Override
        public void flush() throws java.io.IOException {
            first.flush();
            second.flush();
        }
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void headlineRunMeasuresTheRatiosAndSaysWhyTheRestIsMissing(@TempDir Path out) throws Exception {
        Path root = Path.of("..").toAbsolutePath().normalize();
        int status = BenchMain.run(new String[] {"--quick", "--headline", "--statements", "--out", out.toString(),
                "--product-root", root.toString()}, System.out);

        JsonNode results = new ObjectMapper().readTree(out.resolve("results.json").toFile());
        assertThat(results.get("errors")).as("steps that failed").isEmpty();
        assertThat(status).isZero();
        JsonNode figures = results.get("figures");
        for (String key : List.of("drain_1_replica_per_s", "ceiling_per_s", "ceiling_4_in_flight_per_s",
                "db_scheduler_per_s", "pool_to_ceiling_ratio", "pool_to_ceiling_4_in_flight_ratio",
                "pool_to_db_scheduler_ratio")) {
            assertThat(figures.get(key).get("value").asDouble()).as(key).isPositive();
        }
        for (String key : List.of("drain_3_replicas_per_s", "pickup_latency_p50_ms", "inbox_p99_ms",
                "export_events_per_s", "tenants_big_org_api_first_page_p95_ms")) {
            assertThat(figures.get(key).get("skipped").asText()).as(key).isEqualTo("not measured with --headline");
        }

        // --statements: every conflict drained was stored by exactly one store statement, counted per conflict.
        List<String> statements = Files.readAllLines(out.resolve("statements-drain-1.txt"));
        assertThat(statements.get(0)).contains("per conflict");
        assertThat(statements).filteredOn(line -> line.contains("WITH stored AS ( UPDATE policy_conflicts"))
                .singleElement().satisfies(line -> assertThat(line.trim()).startsWith("1.000"));
        assertThat(results.get("notes").get("statements").asText()).contains("statements-drain-1.txt");
    }
}
