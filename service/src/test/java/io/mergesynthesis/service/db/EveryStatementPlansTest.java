package io.mergesynthesis.service.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.mergesynthesis.service.testing.TestDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
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
 * them. A new file is covered with no change here; a new parameter name needs a sample in
 * {@link StatementSamples}, which the failure asks for.
 */
class EveryStatementPlansTest {

    private static final String ROOT = "io/mergesynthesis/service";

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
                if (!StatementSamples.BY_NAME.containsKey(names.get(i))) {
                    fail("no sample value for :" + names.get(i) + " of " + file + ": add one of the type the "
                            + "service binds to StatementSamples.BY_NAME");
                }
                explain.setObject(i + 1, StatementSamples.BY_NAME.get(names.get(i)));
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
