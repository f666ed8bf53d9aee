package io.mergesynthesis.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.core.setup.Bootstrap;
import io.mergesynthesis.service.MergeSynthesisApplication;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.testing.CommandRun;
import io.mergesynthesis.service.testing.Marked;
import io.mergesynthesis.service.testing.Seed;
import io.mergesynthesis.service.testing.TestDatabase;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code requeue} run in-process against a database of its own, as an operator without HTTP access runs it. */
class RequeueCommandTest {

    @TempDir
    Path dir;

    private static CommandRun requeue(Path config, String... args) {
        List<String> all = new ArrayList<>(List.of("requeue", config.toString()));
        all.addAll(List.of(args));
        return CommandRun.run(RequeueCommand::new, all.toArray(String[]::new));
    }

    @Test
    void theApplicationRegistersTheCommand() {
        Bootstrap<MergeSynthesisConfiguration> bootstrap = new Bootstrap<>(new MergeSynthesisApplication());
        new MergeSynthesisApplication().initialize(bootstrap);
        assertThat(bootstrap.getCommands()).anySatisfy(c -> assertThat(c.getName()).isEqualTo("requeue"));
    }

    @Test
    void oneConflictByIdWithTheCommandLineAsWhoAsked() throws Exception {
        TestDatabase database = TestDatabase.fresh();
        Jdbi db = database.jdbi();
        UUID id = Marked.conflict(db, UUID.randomUUID(), "write_merge");
        Path config = CommandRun.config(dir, database.url());

        CommandRun run = requeue(config, "--conflict", id.toString());

        assertThat(run.failure()).isEmpty();
        assertThat(run.lastOutLine()).isEqualTo("requeued 1");
        assertThat(Marked.row(db, id)).isEqualTo("pending|0|||claimable");
        assertThat(Marked.historyLines(db, id)).as("three failures and the re-queue").isEqualTo(4);
        assertThat(Marked.lastHistoryLine(db, id)).isEqualTo("requeued|requeued|0|re-queued by the operator's "
                + "requeue command after 3 attempts (last failure: write_merge)");
        var event = Marked.onlyRequeueEvent(db, id);
        assertThat(event.get("requested_by").asText()).isEqualTo("cli");
        assertThat(event.get("previous_failure_reason").asText()).isEqualTo("write_merge");
        assertThat(event.has("token_id")).isFalse();

        // Again: the conflict is pending now, and the command says so and fails.
        CommandRun again = requeue(config, "--conflict", id.toString());
        assertThat(again.failure()).isPresent();
        assertThat(again.err()).contains("error: conflict " + id + " is in synthesis state pending")
                .doesNotContain("\tat ");
        assertThat(again.out()).doesNotContain("requeued");
        assertThat(Seed.eventCount(db, id, "synthesis_requeued")).isEqualTo(1);

        CommandRun missing = requeue(config, "--conflict", UUID.randomUUID().toString());
        assertThat(missing.failure()).isPresent();
        assertThat(missing.err()).contains("error: no conflict");
    }

    @Test
    void byOrgAndByFailureReasonCountingWhatItRequeued() throws Exception {
        TestDatabase database = TestDatabase.fresh();
        Jdbi db = database.jdbi();
        UUID org = UUID.randomUUID();
        UUID other = UUID.randomUUID();
        List<UUID> ofOrg = List.of(Marked.conflict(db, org, "synthesizer"), Marked.conflict(db, org, "unknown"),
                Marked.conflict(db, org, "synthesizer"));
        UUID ofOther = Marked.conflict(db, other, "synthesizer");
        UUID otherReason = Marked.conflict(db, other, "unknown");
        Path config = CommandRun.config(dir, database.url());

        CommandRun byOrgAndReason = requeue(config, "--org", org.toString(), "--failure-reason", "unknown");
        assertThat(byOrgAndReason.lastOutLine()).isEqualTo("requeued 1");
        assertThat(Marked.row(db, ofOrg.get(1))).startsWith("pending|");

        CommandRun byReason = requeue(config, "--failure-reason", "synthesizer");
        assertThat(byReason.failure()).isEmpty();
        assertThat(byReason.lastOutLine()).isEqualTo("requeued 3");
        assertThat(Marked.row(db, ofOrg.get(0))).startsWith("pending|");
        assertThat(Marked.row(db, ofOrg.get(2))).startsWith("pending|");
        assertThat(Marked.row(db, ofOther)).startsWith("pending|");
        assertThat(Marked.row(db, otherReason)).startsWith("max_attempts_exceeded|");

        CommandRun nothingLeft = requeue(config, "--org", org.toString());
        assertThat(nothingLeft.failure()).isEmpty();
        assertThat(nothingLeft.lastOutLine()).isEqualTo("requeued 0");
    }

    @Test
    void refusesToGuessWhatToRequeue() throws Exception {
        TestDatabase database = TestDatabase.fresh();
        UUID id = Marked.conflict(database.jdbi(), UUID.randomUUID(), "synthesizer");
        Path config = CommandRun.config(dir, database.url());

        CommandRun nothing = requeue(config);
        CommandRun both = requeue(config, "--conflict", id.toString(), "--org", UUID.randomUUID().toString());
        CommandRun badId = requeue(config, "--conflict", "not-a-uuid");
        CommandRun badOrg = requeue(config, "--org", "nope");
        CommandRun badReason = requeue(config, "--failure-reason", "tired");

        assertThat(nothing.err()).contains("error: name what to re-queue");
        assertThat(both.err()).contains("leave out --org and --failure-reason");
        assertThat(badId.err()).contains("--conflict must be a UUID");
        assertThat(badOrg.err()).contains("--org must be a UUID");
        assertThat(badReason.err()).contains("invalid choice");
        for (CommandRun run : List.of(nothing, both, badId, badOrg, badReason)) {
            assertThat(run.failure()).isPresent();
            assertThat(run.out()).doesNotContain("requeued");
        }
        assertThat(Marked.row(database.jdbi(), id)).startsWith("max_attempts_exceeded|");
    }

    @Test
    void refusesASchemaThatIsBehindAndLeavesItSo() throws Exception {
        TestDatabase behind = TestDatabase.migratedTo("4");
        Path config = CommandRun.config(dir, behind.url());

        CommandRun run = requeue(config, "--failure-reason", "synthesizer");

        assertThat(run.failure()).isPresent();
        assertThat(run.err()).contains("schema is behind", "V5", "Run db migrate first").doesNotContain("\tat ");
        assertThat(run.out()).isEmpty();
    }
}
