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
import java.util.ArrayList;
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
    void theDiffShowsTheLinesThatDifferWithALineEitherSide() {
        assertThat(diff("a\nb\nc\nd\n", "a\nb\nx\nd\n")).isEqualTo("""
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
        // A line added among lines kept shows as that line alone; changes far apart as hunks of their own.
        assertThat(diff("t (\n  x\n);\nk1\nk2\ni1\nz1\nz2\nz3\nz4\n",
                "t (\n  x,\n  y\n);\nk1\nk2\ni1\ni2\nz1\nz2\nz3\nz4b\n")).isEqualTo("""
                @@ line 2
                  t (
                -   x
                +   x,
                +   y
                  );
                @@ line 7
                  i1
                + i2
                  z1
                @@ line 10
                  z3
                - z4
                + z4b
                """);
    }

    /**
     * The lines that differ, as hunks with a line of context either side, each headed by its line in the committed
     * file: from a longest common subsequence of lines, so that a line added among lines that stay shows alone.
     * At most {@value #DIFF_LINES} lines in all.
     */
    static String diff(String expected, String actual) {
        List<String> before = expected.lines().toList();
        List<String> after = actual.lines().toList();
        // Common beginning and end first, so that the table below covers only the part that changed.
        int head = 0;
        while (head < before.size() && head < after.size() && before.get(head).equals(after.get(head))) {
            head++;
        }
        int tailBefore = before.size();
        int tailAfter = after.size();
        while (tailBefore > head && tailAfter > head && before.get(tailBefore - 1).equals(after.get(tailAfter - 1))) {
            tailBefore--;
            tailAfter--;
        }
        List<String> a = before.subList(head, tailBefore);
        List<String> b = after.subList(head, tailAfter);
        List<String[]> edits = new ArrayList<>(); // {mark, line}
        if ((long) a.size() * b.size() > 25_000_000L) {
            a.forEach(line -> edits.add(new String[] {"-", line}));
            b.forEach(line -> edits.add(new String[] {"+", line}));
        } else {
            int[][] common = new int[a.size() + 1][b.size() + 1];
            for (int i = a.size() - 1; i >= 0; i--) {
                for (int j = b.size() - 1; j >= 0; j--) {
                    common[i][j] = a.get(i).equals(b.get(j))
                            ? common[i + 1][j + 1] + 1 : Math.max(common[i + 1][j], common[i][j + 1]);
                }
            }
            int i = 0;
            int j = 0;
            while (i < a.size() || j < b.size()) {
                if (i < a.size() && j < b.size() && a.get(i).equals(b.get(j))) {
                    edits.add(new String[] {" ", a.get(i)});
                    i++;
                    j++;
                } else if (i < a.size() && (j == b.size() || common[i + 1][j] >= common[i][j + 1])) {
                    edits.add(new String[] {"-", a.get(i++)}); // a line taken away before the one put in its place
                } else {
                    edits.add(new String[] {"+", b.get(j++)});
                }
            }
        }
        // Number each edit by the committed file's line it stands at, with a kept line either side of the whole.
        List<String[]> all = new ArrayList<>();
        if (head > 0) {
            all.add(new String[] {" ", before.get(head - 1), String.valueOf(head)});
        }
        int line = head + 1;
        for (String[] edit : edits) {
            all.add(new String[] {edit[0], edit[1], String.valueOf(line)});
            if (!"+".equals(edit[0])) {
                line++;
            }
        }
        if (tailBefore < before.size()) {
            all.add(new String[] {" ", before.get(tailBefore), String.valueOf(line)});
        }
        StringBuilder out = new StringBuilder();
        int shown = 0;
        int lastShown = -2;
        for (int k = 0; k < all.size(); k++) {
            boolean changed = !" ".equals(all.get(k)[0]);
            boolean nearChange = changed
                    || (k > 0 && !" ".equals(all.get(k - 1)[0]))
                    || (k + 1 < all.size() && !" ".equals(all.get(k + 1)[0]));
            if (!nearChange) {
                continue;
            }
            if (shown == DIFF_LINES) {
                out.append("... and more\n");
                break;
            }
            if (k != lastShown + 1) {
                int first = k;
                while (first < all.size() && " ".equals(all.get(first)[0])) {
                    first++;
                }
                out.append("@@ line ").append(all.get(first)[2]).append('\n');
            }
            out.append(all.get(k)[0]).append(' ').append(all.get(k)[1]).append('\n');
            lastShown = k;
            shown++;
        }
        return out.toString();
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
