package io.mergesynthesis.service.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.mergesynthesis.service.testing.TestDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.jdbi.v3.core.statement.ColonPrefixSqlParser;
import org.jdbi.v3.core.statement.ParsedSql;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every statement the service keeps in a file ({@link SqlFiles}) parses and plans on the schema the migrations
 * build. Each {@code .sql} file among the service's classes is loaded as the service loads it, beside the class
 * its folder names, and explained with a value of the right type for each of its parameters, as the service binds
 * them. A new file is covered with no change here; a new parameter name needs a sample below, which the failure
 * asks for.
 */
class EveryStatementPlansTest {

    private static final String ROOT = "io/mergesynthesis/service";

    /** A value of the type the service binds, for every parameter name the statements use. */
    private static final Map<String, Object> SAMPLES = Map.ofEntries(
            Map.entry("id", UUID.fromString("11111111-1111-4111-8111-111111111111")),
            Map.entry("org", UUID.fromString("22222222-2222-4222-8222-222222222222")),
            Map.entry("after", UUID.fromString("22222222-2222-4222-8222-222222222222")),
            Map.entry("conflict", UUID.fromString("11111111-1111-4111-8111-111111111111")),
            Map.entry("limit", 4),
            Map.entry("reach", 12),
            Map.entry("heldRoutes", ",anthropic,*,"),
            Map.entry("candidates", "00000000-0000-0000-0000-000000000001,00000000-0000-0000-0000-000000000002"),
            Map.entry("level", 3.5),
            Map.entry("cap", 1000),
            Map.entry("attempts", 1),
            Map.entry("attempt", 1),
            Map.entry("checkVersion", 1),
            Map.entry("leaseMicros", 60_000_000L),
            Map.entry("delayMicros", 1_000_000L),
            Map.entry("owner", "replica-1/worker-1"),
            Map.entry("merge", "{}"),
            Map.entry("details", "{}"),
            Map.entry("calls", "[]"),
            Map.entry("type", "merge_synthesized"),
            Map.entry("reason", "timeout"),
            Map.entry("outcome", "transient_failure"),
            Map.entry("why", "timeout"),
            Map.entry("detail", "the provider did not answer in time"),
            Map.entry("state", "waiting_budget"),
            Map.entry("model", "stand-in/model"),
            Map.entry("budget", new BigDecimal("10.00")),
            Map.entry("weight", 2),
            Map.entry("lane", "batch"),
            Map.entry("requests", 3),
            Map.entry("reservedUsd", new BigDecimal("0.012")),
            Map.entry("inputTokens", 4200L),
            Map.entry("batch", UUID.fromString("66666666-6666-4666-8666-666666666666")),
            Map.entry("provider", "anthropic"),
            Map.entry("providerBatchId", "msgbatch_01"),
            Map.entry("graceMicros", 120_000_000L),
            Map.entry("requester", "{\"requested_by\": \"operator\"}"),
            Map.entry("requestedBy", "operator"),
            Map.entry("afterTx", "0"),
            Map.entry("afterId", 0L),
            Map.entry("upToTx", "1000"),
            Map.entry("upToId", 10L),
            Map.entry("since", Timestamp.from(Instant.parse("2026-01-01T00:00:00Z"))),
            Map.entry("month", Timestamp.from(Instant.parse("2026-01-01T00:00:00Z"))),
            Map.entry("now", Timestamp.from(Instant.parse("2026-01-02T00:00:00Z"))),
            Map.entry("expires", Timestamp.from(Instant.parse("2026-01-03T00:00:00Z"))),
            Map.entry("hash", new byte[32]),
            Map.entry("tokenHash", new byte[32]),
            Map.entry("label", "policy engine, eu-west"),
            Map.entry("ids", new UUID[] {UUID.fromString("55555555-5555-4555-8555-555555555555")}),
            Map.entry("actor", "{\"type\": \"person\", \"id\": \"f:3c1e8a4d:alice\", \"name\": \"Alice\"}"),
            Map.entry("subject", "f:3c1e8a4d:alice"),
            Map.entry("email", "alice@example.com"),
            Map.entry("idToken", "eyJhbGciOiJSUzI1NiJ9.e30.c2ln"),
            Map.entry("idleSince", Timestamp.from(Instant.parse("2026-01-01T23:30:00Z"))),
            Map.entry("role", "operator"),
            Map.entry("prefix", "msk_abcdefgh"),
            Map.entry("seconds", 3600.0),
            Map.entry("key", "sample-01"),
            Map.entry("action", "tool_call"),
            Map.entry("target", "export"),
            Map.entry("rules", "[]"),
            Map.entry("winner", "policy-1"),
            Map.entry("detectedAt", Timestamp.from(Instant.parse("2026-01-01T00:00:00Z"))),
            Map.entry("channel", "policy_conflicts_pending"),
            Map.entry("inbox", "open"),
            Map.entry("unresolvedOnly", Boolean.TRUE),
            Map.entry("laneLeft", Boolean.TRUE),
            Map.entry("wholeOrg", Boolean.TRUE),
            Map.entry("autoAbove", 500),
            Map.entry("costUsd", new BigDecimal("0.25")),
            Map.entry("matched", new UUID[] {UUID.fromString("55555555-5555-4555-8555-555555555555")}),
            Map.entry("positionReceivedAt", Timestamp.from(Instant.parse("2026-01-02T00:00:00Z"))),
            Map.entry("positionConflict", UUID.fromString("44444444-4444-4444-8444-444444444444")),
            Map.entry("resolution", "accepted_suggestion"),
            Map.entry("note", "merged by hand"),
            Map.entry("offset", 0),
            Map.entry("name", "Acme Corp"),
            Map.entry("orgs", new UUID[] {UUID.fromString("22222222-2222-4222-8222-222222222222")}),
            Map.entry("afterUpdatedAt", Timestamp.from(Instant.parse("2026-01-02T00:00:00Z"))),
            Map.entry("afterConflict", UUID.fromString("44444444-4444-4444-8444-444444444444")),
            Map.entry("replica", "host-1a2b3c4d"),
            Map.entry("host", "host"),
            Map.entry("version", "1.0.0"),
            Map.entry("startedAt", Timestamp.from(Instant.parse("2026-01-01T00:00:00Z"))),
            Map.entry("intervalMs", 5000),
            Map.entry("workers", 4),
            Map.entry("inFlight", 2),
            Map.entry("lastClaimAt", Timestamp.from(Instant.parse("2026-01-01T00:00:00Z"))),
            Map.entry("stoppedAt", Timestamp.from(Instant.parse("2026-01-01T00:00:00Z"))),
            Map.entry("providers", "{}"),
            Map.entry("unit", "minute"),
            Map.entry("maxOrgs", 500),
            Map.entry("most", 2000),
            Map.entry("sort", "spend"),
            Map.entry("step", "1 minute"),
            Map.entry("lockKey", 1L),
            Map.entry("months", 3),
            Map.entry("keepMonths", 12),
            Map.entry("dryRun", true),
            Map.entry("kinds", new String[] {"input_tokens", "output_tokens"}),
            Map.entry("heldTokens", new Double[] {2000.0, 1024.0}),
            Map.entry("returnedTokens", new Double[] {0.0, 844.0}),
            Map.entry("unseenTokens", new Double[] {0.0, 0.0}),
            Map.entry("statedLimits", new Long[] {30_000L, null}),
            Map.entry("statedRemaining", new Long[] {12_000L, null}),
            Map.entry("levelsAfter", new Double[] {11_500.0, null}),
            Map.entry("versions", new Long[] {1L, 0L}),
            Map.entry("inFlightBefore", new Double[] {4000.0, 0.0}),
            Map.entry("reservedThrough", new Double[] {120_000.0, 0.0}),
            Map.entry("answered", true));

    private static Connection connection;

    @BeforeAll
    static void schema() throws SQLException {
        TestDatabase database = TestDatabase.fresh();
        connection = DriverManager.getConnection(database.url(), database.user(), "");
    }

    @AfterAll
    static void close() throws SQLException {
        connection.close();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("statementFiles")
    void theStatementPlansOnTheSchema(String file) throws SQLException {
        String sql = SqlFiles.of(ownerOf(file), nameOf(file));
        assertThat(sql).as("one statement per file").doesNotContain(";");
        ParsedSql parsed = new ColonPrefixSqlParser().parse(sql, null);
        try (PreparedStatement explain = connection.prepareStatement("EXPLAIN " + parsed.getSql())) {
            List<String> names = parsed.getParameters().getParameterNames();
            for (int i = 0; i < names.size(); i++) {
                if (!SAMPLES.containsKey(names.get(i))) {
                    fail("no sample value for :" + names.get(i) + " of " + file + ": add one of the type the "
                            + "service binds to SAMPLES");
                }
                explain.setObject(i + 1, SAMPLES.get(names.get(i)));
            }
            try (ResultSet plan = explain.executeQuery()) {
                assertThat(plan.next()).as("a plan for " + file).isTrue();
                assertThat(plan.getString(1)).isNotBlank();
            }
        }
    }

    @Test
    void theStatementsAreFoundWhereTheServiceKeepsThem() {
        // A floor, not a count: the named files below pin the place, the floor that the walk reads the whole tree.
        assertThat(statementFiles()).hasSizeGreaterThan(20).contains(
                ROOT + "/worker/store/ConflictLeases/claim.sql",
                ROOT + "/worker/store/ConflictLeases/waiting_orgs.sql",
                ROOT + "/db/ConflictStore/ahead_in_org.sql",
                ROOT + "/worker/store/ConflictLeases/store_merge_with_calls.sql",
                ROOT + "/worker/store/ConflictLeases/ledger_rows_without_merge.sql",
                ROOT + "/db/UsageLedger/record_early.sql",
                ROOT + "/db/CallShares/by_org.sql",
                ROOT + "/db/MarkedConflicts/requeue.sql",
                ROOT + "/db/EventStream/page_of_org.sql");
    }

    static List<String> statementFiles() {
        Path classes = classesRoot();
        try (Stream<Path> files = Files.walk(classes.resolve(ROOT))) {
            return files.filter(path -> path.toString().endsWith(".sql"))
                    .map(path -> classes.relativize(path).toString().replace('\\', '/'))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Where the service's own classes and resources are: the statements of the build under test. */
    private static Path classesRoot() {
        try {
            return Path.of(SqlFiles.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Class<?> ownerOf(String file) {
        String owner = file.substring(0, file.lastIndexOf('/')).replace('/', '.');
        try {
            return Class.forName(owner);
        } catch (ClassNotFoundException e) {
            throw new AssertionError(file + " is not beside a class: a statement file goes in the folder named after "
                    + "the class that runs it, and " + owner + " is none", e);
        }
    }

    private static String nameOf(String file) {
        return file.substring(file.lastIndexOf('/') + 1, file.length() - ".sql".length());
    }
}
