package io.mergesynthesis.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.util.JarLocation;
import io.mergesynthesis.service.MergeSynthesisApplication;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.testing.Seed;
import io.mergesynthesis.service.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code export-events} run in-process: events on standard output, the next cursor last on standard error. */
class ExportEventsCommandTest {

    static final UUID ORG_A = UUID.randomUUID();
    static final UUID ORG_B = UUID.randomUUID();
    static Path config;

    @BeforeAll
    static void databaseWithThreeEvents(@TempDir Path dir) throws Exception {
        TestDatabase database = TestDatabase.fresh();
        Jdbi superuser = database.jdbi();
        for (UUID org : List.of(ORG_A, ORG_A, ORG_B)) {
            UUID id = UUID.randomUUID();
            superuser.useHandle(h -> {
                h.createUpdate("""
                                INSERT INTO policy_conflicts (id, org_id, dedup_key, action, target, rules,
                                                              winner_policy_id, detected_at)
                                VALUES (:id, :org, :key, 'tool_call', 'jira.*', '[]', 'p1', now())""")
                        .bind("id", id).bind("org", org).bind("key", "cli-" + id).execute();
                h.createUpdate("INSERT INTO conflict_events (org_id, conflict_id, event_type) "
                                + "VALUES (:org, :id, 'conflict_detected')")
                        .bind("org", org).bind("id", id).execute();
            });
        }
        String test = Files.readString(Path.of(ExportEventsCommandTest.class.getResource("/test-config.yml").toURI()));
        config = dir.resolve("config.yml");
        Files.writeString(config, test.replace("url: embedded", "url: " + database.url()));
    }

    private record Run(Optional<Throwable> failure, String out, String err) {
        List<String> outLines() {
            return out.isEmpty() ? List.of() : List.of(out.split("\n"));
        }

        String cursor() {
            String[] lines = err.split("\n");
            return lines[lines.length - 1];
        }
    }

    private static Run run(String... args) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream stdout = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream stderr = new PrintStream(err, true, StandardCharsets.UTF_8);
        MergeSynthesisApplication application = new MergeSynthesisApplication();
        Bootstrap<MergeSynthesisConfiguration> bootstrap = new Bootstrap<>(application);
        bootstrap.addCommand(new ExportEventsCommand(stdout, stderr));
        List<String> all = new ArrayList<>(List.of("export-events"));
        all.addAll(List.of(args));
        all.add(config.toString());
        Optional<Throwable> failure = new Cli(new JarLocation(MergeSynthesisApplication.class), bootstrap, stdout, stderr)
                .run(all.toArray(String[]::new));
        return new Run(failure, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void theApplicationRegistersTheCommand() {
        Bootstrap<MergeSynthesisConfiguration> bootstrap = new Bootstrap<>(new MergeSynthesisApplication());
        new MergeSynthesisApplication().initialize(bootstrap);
        assertThat(bootstrap.getCommands()).anySatisfy(c -> assertThat(c.getName()).isEqualTo("export-events"));
    }

    @Test
    void pagesThroughEveryOrgAndResumesFromTheCursorOnStandardError() throws Exception {
        Run first = run("--format", "ndjson", "--limit", "2");
        assertThat(first.failure()).isEmpty();
        assertThat(first.outLines()).hasSize(3);
        assertThat(first.outLines().subList(0, 2)).allSatisfy(line ->
                assertThat(Seed.parse(line).at("/event/action").asText()).isEqualTo("conflict-detected"));
        JsonNode trailer = Seed.parse(first.outLines().get(2));
        assertThat(trailer.get("next_cursor").asText()).isEqualTo(first.cursor());

        Run second = run("--format", "cef", "--after", first.cursor());
        assertThat(second.failure()).isEmpty();
        assertThat(second.outLines()).hasSize(1).allSatisfy(line -> assertThat(line).startsWith("CEF:0|"));
        assertThat(second.out()).contains("cs1=" + ORG_B);

        Run third = run("--format", "cef", "--after", second.cursor());
        assertThat(third.out()).isEmpty();
        assertThat(third.cursor()).isEqualTo(second.cursor());
    }

    @Test
    void oneOrgOnlyWithOrg() throws Exception {
        Run run = run("--format", "cef", "--org", ORG_A.toString());
        assertThat(run.failure()).isEmpty();
        assertThat(run.outLines()).hasSize(2).allSatisfy(line -> assertThat(line).contains("cs1=" + ORG_A));
        assertThat(run.out()).doesNotContain(ORG_B.toString());
    }

    @Test
    void aBadCursorFailsWithoutOutput() throws Exception {
        Run run = run("--format", "ndjson", "--after", "not-a-cursor");
        assertThat(run.failure()).isPresent();
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("cursor");
    }
}
