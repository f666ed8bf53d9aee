package io.mergesynthesis.service.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.mergesynthesis.service.testing.TestDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The schema the migrations build is the one committed in {@code docs/database/schema.sql}: a migration that
 * changes the schema brings the snapshot's change with it, so that its pull request shows what it did to the
 * tables, and a reader of the snapshot reads the database as it is. {@code docs/database.md} explains it.
 *
 * <p>Run with {@code -Dschema.snapshot.write=true} to write the snapshot afresh from the migrations, then review
 * its diff.
 */
class SchemaSnapshotTest {

    static final String SNAPSHOT = "docs/database/schema.sql";
    static final String REFRESH = "mvn -B -pl service -am test -Dtest=SchemaSnapshotTest "
            + "-Dsurefire.failIfNoSpecifiedTests=false -Dschema.snapshot.write=true";
    private static final String HEADER = """
            -- The schema of merge-synthesis as its migrations (service/src/main/resources/db/migration) leave a
            -- fresh database, read from the server's catalogs and normalized: no owners, no server version, every
            -- list sorted, the migrating login written <login>, and the month partitions of a table written once as
            -- <table>_YYYY_MM. docs/database.md explains the tables; SchemaSnapshotTest checks this file.
            --
            -- Do not edit by hand. After changing a migration, write it afresh and commit the diff with the migration:
            --   %s

            """.formatted(REFRESH);
    private static final int DIFF_LINES = 40;

    @Test
    void theMigratedSchemaIsTheCommittedSnapshot() throws Exception {
        TestDatabase database = TestDatabase.fresh();
        String actual;
        try (Connection connection = DriverManager.getConnection(database.url(), database.user(), "")) {
            actual = HEADER + SchemaSnapshot.of(connection);
        }
        Path file = repositoryRoot().resolve(SNAPSHOT);

        if (Boolean.getBoolean("schema.snapshot.write")) {
            Files.createDirectories(file.getParent());
            Files.writeString(file, actual, StandardCharsets.UTF_8);
            System.err.println("Wrote " + SNAPSHOT + ": review its diff and commit it with the migration.");
            return;
        }
        if (!Files.isRegularFile(file)) {
            fail(SNAPSHOT + " is missing. Write it with:\n  " + REFRESH);
        }
        String expected = Files.readString(file, StandardCharsets.UTF_8).replace("\r\n", "\n");
        if (!expected.equals(actual)) {
            fail("The migrated schema differs from " + SNAPSHOT + " (- committed, + migrated):\n"
                    + diff(expected, actual)
                    + "\nIf the migrations are right, write the snapshot afresh and commit its diff with them:\n  "
                    + REFRESH);
        }
    }

    @Test
    void theDiffShowsTheLinesThatDifferBetweenWhatIsAlike() {
        String diff = diff("a\nb\nc\nd\n", "a\nb\nx\nd\n");
        assertThat(diff).isEqualTo("""
                @@ line 3
                  b
                - c
                + x
                  d
                """);
        assertThat(diff("a\n", "a\nb\n")).isEqualTo("""
                @@ line 2
                  a
                + b
                """);
    }

    /**
     * One hunk from the first line that differs to the last: the lines only one side has between the longest
     * common beginning and end, a line of context either side, at most {@value #DIFF_LINES} lines of each side.
     */
    static String diff(String expected, String actual) {
        List<String> before = expected.lines().toList();
        List<String> after = actual.lines().toList();
        int start = 0;
        while (start < before.size() && start < after.size() && before.get(start).equals(after.get(start))) {
            start++;
        }
        int endBefore = before.size();
        int endAfter = after.size();
        while (endBefore > start && endAfter > start && before.get(endBefore - 1).equals(after.get(endAfter - 1))) {
            endBefore--;
            endAfter--;
        }
        StringBuilder out = new StringBuilder("@@ line ").append(start + 1).append('\n');
        if (start > 0) {
            out.append("  ").append(before.get(start - 1)).append('\n');
        }
        appendSide(out, "- ", before.subList(start, endBefore));
        appendSide(out, "+ ", after.subList(start, endAfter));
        if (endBefore < before.size()) {
            out.append("  ").append(before.get(endBefore)).append('\n');
        }
        return out.toString();
    }

    private static void appendSide(StringBuilder out, String mark, List<String> lines) {
        lines.stream().limit(DIFF_LINES).forEach(line -> out.append(mark).append(line).append('\n'));
        if (lines.size() > DIFF_LINES) {
            out.append(mark).append("... ").append(lines.size() - DIFF_LINES).append(" more line(s)\n");
        }
    }

    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("docs/adr"))) {
                return dir;
            }
        }
        throw new IllegalStateException("README.md and docs/adr not found above " + Path.of("").toAbsolutePath());
    }
}
