package io.mergesynthesis.service.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mergesynthesis.service.core.MonthPartition;
import io.mergesynthesis.service.export.CursorPastRetention;
import io.mergesynthesis.service.export.EventExport;
import io.mergesynthesis.service.testing.StreamReader;
import io.mergesynthesis.service.testing.TestDatabase;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.List;
import java.util.OptionalInt;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The partitions' upkeep on a real database: a row with no month partition is caught by the DEFAULT one and moved
 * into its month when the upkeep makes it; whole months past the retention are dropped (or only listed); and a
 * SIEM reader whose cursor stood before the dropped events is stopped and told, while one past them reads on.
 */
class PartitionUpkeepTest {

    private static final UUID ORG = UUID.fromString("aaaaaaaa-0000-4000-8000-0000000000aa");
    private static final YearMonth FOUR_MONTHS_AGO = YearMonth.now(ZoneOffset.UTC).minusMonths(4);

    private TestDatabase database;
    private Jdbi superuser;

    @BeforeEach
    void database() {
        database = TestDatabase.fresh();
        superuser = database.jdbi();
        superuser.useHandle(h -> h.createUpdate("""
                        INSERT INTO policy_conflicts (id, org_id, dedup_key, action, target, rules, winner_policy_id,
                                                      detected_at)
                        VALUES (gen_random_uuid(), :org, 'k-1', 'tool_call', 'jira.*', '[]', 'p1', now())""")
                .bind("org", ORG).execute());
    }

    /** {@code count} events of the org, in one transaction, {@code monthsBack} months before this one. */
    private void events(int count, int monthsBack) {
        superuser.useHandle(h -> h.createUpdate("""
                        INSERT INTO conflict_events (org_id, conflict_id, event_type, occurred_at)
                        SELECT org_id, id, 'conflict_detected',
                               date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
                                   - :back * interval '1 month' + interval '3 days'
                        FROM policy_conflicts, generate_series(1, :count)""")
                .bind("back", monthsBack).bind("count", count).execute());
    }

    private String partitionsHolding() {
        List<String> names = superuser.withHandle(h -> h.createQuery(
                "SELECT DISTINCT tableoid::regclass::text FROM conflict_events ORDER BY 1").mapTo(String.class).list());
        return String.join(",", names);
    }

    private static String monthPartition(String table, YearMonth month) {
        return table + "_" + month.toString().replace('-', '_');
    }

    @Test
    void aRowOfAMonthWithNoPartitionWaitsInTheDefaultUntilTheUpkeepMakesItsMonth() {
        events(2, 4);
        assertThat(partitionsHolding()).isEqualTo("conflict_events_default");

        PartitionUpkeep.Outcome outcome = new PartitionUpkeep(database.transactions(), OptionalInt.empty(), 3).run();

        assertThat(outcome.hadTurn()).isTrue();
        assertThat(outcome.created()).containsExactly(monthPartition("conflict_events", FOUR_MONTHS_AGO));
        assertThat(outcome.dropped()).isEmpty();
        assertThat(partitionsHolding()).isEqualTo(monthPartition("conflict_events", FOUR_MONTHS_AGO));
        assertThat(new PartitionUpkeep(database.transactions(), OptionalInt.empty(), 3).run().created())
                .as("a second run finds everything made").isEmpty();
    }

    @Test
    void monthsPastTheRetentionAreDroppedAndAReaderLeftBehindIsTold() {
        events(3, 4);
        events(2, 0);
        // Made by a run that keeps everything; a retention is configured afterwards.
        new PartitionUpkeep(database.transactions(), OptionalInt.empty(), 3).run();
        PartitionUpkeep keepTwo = new PartitionUpkeep(database.transactions(), OptionalInt.of(2), 3);
        EventExport export = new EventExport(database.transactions());
        StreamReader behind = new StreamReader(export, null);
        assertThat(behind.next(1)).hasSize(1);
        StreamReader orgBehind = new StreamReader(export, ORG);
        assertThat(orgBehind.next(1)).hasSize(1);
        StreamReader caughtUp = new StreamReader(export, null);
        assertThat(caughtUp.next(3)).hasSize(3);

        List<MonthPartition> listed = keepTwo.dryRun().dropped();
        assertThat(listed).extracting(MonthPartition::name)
                .containsExactly(monthPartition("conflict_events", FOUR_MONTHS_AGO));
        assertThat(listed.get(0).month()).isEqualTo(FOUR_MONTHS_AGO);
        assertThat(listed.get(0).bytes()).isPositive();
        assertThat(count()).as("a dry run drops nothing").isEqualTo(5);

        assertThat(keepTwo.run().dropped()).isEqualTo(listed);
        assertThat(count()).isEqualTo(2);

        assertThatThrownBy(() -> behind.next(10)).isInstanceOf(CursorPastRetention.class)
                .hasMessageContaining("no longer kept");
        assertThatThrownBy(() -> orgBehind.next(10)).isInstanceOf(CursorPastRetention.class);
        assertThat(caughtUp.next(10)).as("past the dropped events, the reader reads on").hasSize(2);
        assertThat(new StreamReader(export, null).next(10)).as("afresh, every event kept").hasSize(2);
    }

    @Test
    void aRetentionUnderTwoMonthsIsRefusedByTheSchemaToo() {
        assertThatThrownBy(() -> new PartitionUpkeep(database.transactions(), OptionalInt.of(1), 3).run())
                .hasMessageContaining("too short: keep at least 2");
    }

    private long count() {
        return superuser.withHandle(h -> h.createQuery("SELECT count(*) FROM conflict_events").mapTo(Long.class).one());
    }
}
