package io.mergesynthesis.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.testing.CommandRun;
import io.mergesynthesis.service.testing.TestDatabase;
import java.nio.file.Path;
import java.time.YearMonth;
import java.time.ZoneOffset;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code db retention} run in-process, as an operator runs it against a database of one's own. */
class RetentionCommandTest {

    @TempDir
    Path dir;

    @Test
    void printsWhatItWouldDropThenDropsIt() throws Exception {
        TestDatabase database = TestDatabase.fresh();
        Jdbi db = database.jdbi();
        YearMonth old = YearMonth.now(ZoneOffset.UTC).minusMonths(5);
        db.useHandle(h -> h.createUpdate("""
                        INSERT INTO policy_conflicts (id, org_id, dedup_key, action, target, rules, winner_policy_id,
                                                      detected_at)
                        VALUES (gen_random_uuid(), gen_random_uuid(), 'k-1', 'tool_call', 'jira.*', '[]', 'p1', now());
                        SELECT create_month_partition('synthesis_attempt_history', CAST(:month AS date));
                        INSERT INTO synthesis_attempt_history (org_id, conflict_id, attempt, outcome, reason, finished_at)
                        SELECT org_id, id, 1, 'deferred', 'budget', CAST(:month AS timestamptz) + interval '1 day'
                        FROM policy_conflicts""")
                .bind("month", old.atDay(1).toString()).execute());
        Path config = CommandRun.config(dir, database.url(), "retention:", "  months: 3");
        String partition = "synthesis_attempt_history_" + old.toString().replace('-', '_');

        CommandRun dry = CommandRun.run(DatabaseCommand::new, "db", "retention", config.toString(), "--dry-run");
        assertThat(dry.failure()).isEmpty();
        assertThat(dry.outLines().get(0)).startsWith("would drop " + partition + " " + old + " ");
        assertThat(dry.lastOutLine()).startsWith("would drop 1 partition(s), ").endsWith("keeping 3 months");

        CommandRun run = CommandRun.run(DatabaseCommand::new, "db", "retention", config.toString());
        assertThat(run.failure()).isEmpty();
        assertThat(run.outLines().get(0)).startsWith("dropped " + partition + " ");
        boolean gone = db.withHandle(h -> h.createQuery("SELECT to_regclass(:p) IS NULL").bind("p", partition)
                .mapTo(Boolean.class).one());
        assertThat(gone).isTrue();
    }

    @Test
    void withoutARetentionOrWithOneTooShortItRefuses() throws Exception {
        TestDatabase database = TestDatabase.fresh();
        CommandRun unset = CommandRun.run(DatabaseCommand::new, "db", "retention",
                CommandRun.config(dir, database.url()).toString());
        assertThat(unset.failure()).isPresent();
        assertThat(unset.err()).contains("error: retention.months is not set").doesNotContain("\tat ");

        CommandRun tooShort = CommandRun.run(DatabaseCommand::new, "db", "retention",
                CommandRun.config(dir, database.url(), "retention:", "  months: 1").toString());
        assertThat(tooShort.failure()).isPresent();
        assertThat(tooShort.err() + tooShort.out()).contains("retention.months must be at least 2");
    }
}
