package io.mergesynthesis.service.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The schema of one database as SQL text, read from the server's catalogs: roles and their memberships,
 * extensions, domains, sequences, functions, tables with their columns, constraints, indexes, triggers, row-level
 * security, policies and grants, views, and partitions. The same schema always reads as the same text, whatever
 * the machine, the day or the order objects were made in:
 *
 * <ul>
 *   <li>no owners, OIDs, sizes, sequence positions or server version; every list sorted here, not by the server;</li>
 *   <li>the login that ran the migrations is written {@code <login>}, since each installation names its own;</li>
 *   <li>a month partition ({@code conflict_events_2026_11}) is written {@code conflict_events_YYYY_MM} with its
 *       bounds as placeholders, and the month partitions of one table, alike but for their month, as one, so the
 *       text does not depend on the date the database was migrated;</li>
 *   <li>Flyway's own history table and the members of extensions are left out.</li>
 * </ul>
 *
 * <p>Expressions, defaults and function bodies are as the server prints them back ({@code pg_get_expr},
 * {@code pg_get_functiondef}, ...), which can differ between PostgreSQL major versions: the snapshot is taken on
 * the embedded server the tests run on, whose version the build fixes.
 */
final class SchemaSnapshot {

    private static final String SCHEMA = "public";
    private static final String FLYWAY_HISTORY = "flyway_schema_history";
    private static final Pattern MONTH_SUFFIX = Pattern.compile("^(.+)_[0-9]{4}_[0-9]{2}$");
    private static final Pattern BOUND_VALUE = Pattern.compile("'[0-9]{4}-[0-9]{2}-[0-9]{2}[^']*'");

    private final Connection connection;
    /** Names of month partitions, each mapped to its placeholder. */
    private final Map<String, String> monthPartitions = new TreeMap<>();
    private String login;

    private SchemaSnapshot(Connection connection) {
        this.connection = connection;
    }

    /** The schema of the database {@code connection} is connected to, as normalized text ending in a newline. */
    static String of(Connection connection) throws SQLException {
        return new SchemaSnapshot(connection).read();
    }

    private String read() throws SQLException {
        try (Statement statement = connection.createStatement()) {
            // Expressions are printed in the session's time zone, and names outside the search path qualified.
            statement.execute("SET TimeZone = 'UTC'");
            statement.execute("SET search_path = " + SCHEMA);
            statement.execute("SET DateStyle = 'ISO, YMD'");
            statement.execute("SET IntervalStyle = 'postgres'");
        }
        login = single("SELECT current_user");
        findMonthPartitions();

        StringBuilder out = new StringBuilder();
        section(out, "Roles and the schema's grants", roles());
        section(out, "Extensions", extensions());
        section(out, "Domains and types", types());
        section(out, "Sequences", sequences());
        section(out, "Functions", functions());
        section(out, "Tables", tables(false));
        section(out, "Views", views());
        section(out, "Partitions", tables(true));
        return out.toString().stripTrailing() + "\n";
    }

    private static void section(StringBuilder out, String title, Iterable<String> blocks) {
        out.append("-- ").append(title).append("\n\n");
        boolean any = false;
        for (String block : blocks) {
            out.append(block.strip()).append("\n\n");
            any = true;
        }
        if (!any) {
            out.append("-- (none)\n\n");
        }
    }

    // ---------------------------------------------------------------------------------------------------- roles

    private Iterable<String> roles() throws SQLException {
        Set<String> blocks = new TreeSet<>();
        // The service's roles, and any role that holds a privilege on something of the schema.
        for (List<String> row : rows("""
                SELECT r.rolname, r.rolcanlogin, r.rolbypassrls, r.rolsuper, r.rolinherit, r.rolcreaterole,
                       r.rolcreatedb, r.rolreplication
                  FROM pg_roles r
                 WHERE r.rolname <> current_user
                   AND (r.rolname LIKE 'merge\\_synthesis\\_%'
                        OR r.oid IN (SELECT (aclexplode(c.relacl)).grantee FROM pg_class c
                                      WHERE c.relnamespace = CAST(? AS regnamespace) AND c.relacl IS NOT NULL))
                """, SCHEMA)) {
            List<String> attributes = new ArrayList<>();
            attributes.add(flag(row.get(1)) ? "LOGIN" : "NOLOGIN");
            attributes.add(flag(row.get(2)) ? "BYPASSRLS" : "NOBYPASSRLS");
            if (flag(row.get(3))) {
                attributes.add("SUPERUSER");
            }
            if (!flag(row.get(4))) {
                attributes.add("NOINHERIT");
            }
            if (flag(row.get(5))) {
                attributes.add("CREATEROLE");
            }
            if (flag(row.get(6))) {
                attributes.add("CREATEDB");
            }
            if (flag(row.get(7))) {
                attributes.add("REPLICATION");
            }
            blocks.add("CREATE ROLE " + row.get(0) + " " + String.join(" ", attributes) + ";");
        }
        for (List<String> row : rows("""
                SELECT g.rolname, m.rolname
                  FROM pg_auth_members a
                  JOIN pg_roles g ON g.oid = a.roleid
                  JOIN pg_roles m ON m.oid = a.member
                 WHERE g.rolname LIKE 'merge\\_synthesis\\_%' OR m.rolname LIKE 'merge\\_synthesis\\_%'
                """)) {
            blocks.add("GRANT " + row.get(0) + " TO " + roleName(row.get(1)) + ";");
        }
        for (String grant : grants("SCHEMA " + SCHEMA, """
                SELECT n.nspacl, pg_get_userbyid(n.nspowner) FROM pg_namespace n WHERE n.nspname = ?""", SCHEMA)) {
            blocks.add(grant);
        }
        return blocks;
    }

    private Iterable<String> extensions() throws SQLException {
        Set<String> blocks = new TreeSet<>();
        for (List<String> row : rows("""
                SELECT e.extname, n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                 WHERE e.extname <> 'plpgsql'""")) {
            // No version: it comes with the server's build, not with the migrations.
            blocks.add("CREATE EXTENSION " + row.get(0) + " WITH SCHEMA " + row.get(1) + ";");
        }
        return blocks;
    }

    private Iterable<String> types() throws SQLException {
        Map<String, String> blocks = new TreeMap<>();
        for (List<String> row : rows("""
                SELECT t.oid, t.typname, t.typtype, format_type(t.typbasetype, t.typtypmod), t.typnotnull,
                       t.typdefault
                  FROM pg_type t
                 WHERE t.typnamespace = CAST(? AS regnamespace)
                   AND (t.typtype IN ('d', 'e', 'r', 'm')
                        OR (t.typtype = 'c' AND (SELECT c.relkind FROM pg_class c WHERE c.oid = t.typrelid) = 'c'))
                   AND NOT EXISTS (SELECT 1 FROM pg_depend d
                                    WHERE d.classid = 'pg_type'::regclass AND d.objid = t.oid AND d.deptype = 'e')
                """, SCHEMA)) {
            String name = row.get(1);
            StringBuilder block = new StringBuilder();
            switch (row.get(2)) {
                case "d" -> {
                    block.append("CREATE DOMAIN ").append(name).append(" AS ").append(row.get(3));
                    if (row.get(5) != null) {
                        block.append(" DEFAULT ").append(row.get(5));
                    }
                    if (flag(row.get(4))) {
                        block.append(" NOT NULL");
                    }
                    for (List<String> check : rows("""
                            SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint
                             WHERE contypid = ?::oid ORDER BY conname""", row.get(0))) {
                        block.append("\n    CONSTRAINT ").append(check.get(0)).append(' ').append(check.get(1));
                    }
                    block.append(';');
                }
                case "e" -> {
                    List<String> labels = new ArrayList<>();
                    for (List<String> label : rows("""
                            SELECT quote_literal(enumlabel) FROM pg_enum WHERE enumtypid = ?::oid
                             ORDER BY enumsortorder""", row.get(0))) {
                        labels.add(label.get(0));
                    }
                    block.append("CREATE TYPE ").append(name).append(" AS ENUM (").append(String.join(", ", labels))
                            .append(");");
                }
                default -> block.append("CREATE TYPE ").append(name).append(" -- of kind ").append(row.get(2));
            }
            blocks.put(name, block.toString());
        }
        return blocks.values();
    }

    private Iterable<String> sequences() throws SQLException {
        Map<String, String> blocks = new TreeMap<>();
        for (List<String> row : rows("""
                SELECT c.oid, c.relname, format_type(s.seqtypid, NULL), s.seqstart, s.seqincrement, s.seqmin,
                       s.seqmax, s.seqcache, s.seqcycle,
                       (SELECT t.relname || '.' || a.attname
                          FROM pg_depend d
                          JOIN pg_class t ON t.oid = d.refobjid
                          JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
                         WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                           AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i'))
                  FROM pg_class c JOIN pg_sequence s ON s.seqrelid = c.oid
                 WHERE c.relnamespace = CAST(? AS regnamespace) AND c.relkind = 'S'
                """, SCHEMA)) {
            String name = row.get(1);
            if (name.startsWith(FLYWAY_HISTORY)) {
                continue;
            }
            StringBuilder block = new StringBuilder("CREATE SEQUENCE ").append(name).append(" AS ").append(row.get(2))
                    .append(" START ").append(row.get(3)).append(" INCREMENT ").append(row.get(4))
                    .append(" MINVALUE ").append(row.get(5)).append(" MAXVALUE ").append(row.get(6))
                    .append(" CACHE ").append(row.get(7)).append(flag(row.get(8)) ? " CYCLE" : " NO CYCLE");
            if (row.get(9) != null) {
                block.append(" OWNED BY ").append(row.get(9));
            }
            block.append(';');
            for (String grant : grants("SEQUENCE " + name, """
                    SELECT c.relacl, pg_get_userbyid(c.relowner) FROM pg_class c WHERE c.oid = ?::oid""",
                    row.get(0))) {
                block.append('\n').append(grant);
            }
            blocks.put(name, block.toString());
        }
        return blocks.values();
    }

    // ------------------------------------------------------------------------------------------------ functions

    private Iterable<String> functions() throws SQLException {
        Map<String, String> blocks = new TreeMap<>();
        for (List<String> row : rows("""
                SELECT p.oid, p.proname, pg_get_function_identity_arguments(p.oid), p.prokind,
                       CASE WHEN p.prokind IN ('f', 'p') THEN pg_get_functiondef(p.oid) END,
                       obj_description(p.oid, 'pg_proc')
                  FROM pg_proc p
                 WHERE p.pronamespace = CAST(? AS regnamespace)
                   AND NOT EXISTS (SELECT 1 FROM pg_depend d
                                    WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
                """, SCHEMA)) {
            String signature = row.get(1) + "(" + row.get(2) + ")";
            String kind = "p".equals(row.get(3)) ? "PROCEDURE" : "FUNCTION";
            StringBuilder block = new StringBuilder();
            if (row.get(4) != null) {
                block.append(row.get(4).strip()).append(';');
            } else {
                block.append("-- ").append("a".equals(row.get(3)) ? "AGGREGATE " : "ROUTINE ").append(signature);
            }
            if (row.get(5) != null) {
                block.append("\nCOMMENT ON ").append(kind).append(' ').append(signature).append(" IS ")
                        .append(literal(row.get(5))).append(';');
            }
            for (String grant : grants(kind + " " + signature, """
                    SELECT p.proacl, pg_get_userbyid(p.proowner) FROM pg_proc p WHERE p.oid = ?::oid""",
                    row.get(0))) {
                block.append('\n').append(grant);
            }
            blocks.put(signature, block.toString());
        }
        return blocks.values();
    }

    // --------------------------------------------------------------------------------------------------- tables

    private void findMonthPartitions() throws SQLException {
        for (List<String> row : rows("""
                SELECT c.relname, p.relname
                  FROM pg_class c
                  JOIN pg_inherits i ON i.inhrelid = c.oid
                  JOIN pg_class p ON p.oid = i.inhparent
                 WHERE c.relnamespace = CAST(? AS regnamespace) AND c.relispartition AND c.relkind IN ('r', 'p')
                """, SCHEMA)) {
            Matcher month = MONTH_SUFFIX.matcher(row.get(0));
            if (month.matches() && month.group(1).equals(row.get(1))) {
                monthPartitions.put(row.get(0), row.get(1) + "_YYYY_MM");
            }
        }
    }

    /** Every table that is not a partition, or every partition; with its parts, month partitions normalized. */
    private Iterable<String> tables(boolean partitions) throws SQLException {
        Map<String, Set<String>> blocks = new TreeMap<>();
        for (List<String> row : rows("""
                SELECT c.oid, c.relname, c.relkind, c.relpersistence, c.relrowsecurity, c.relforcerowsecurity,
                       array_to_string(c.reloptions, ', '),
                       CASE WHEN c.relkind = 'p' THEN pg_get_partkeydef(c.oid) END,
                       (SELECT p.relname FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent
                         WHERE i.inhrelid = c.oid),
                       pg_get_expr(c.relpartbound, c.oid),
                       obj_description(c.oid, 'pg_class')
                  FROM pg_class c
                 WHERE c.relnamespace = CAST(? AS regnamespace) AND c.relkind IN ('r', 'p')
                   AND c.relispartition = CAST(? AS boolean)
                   AND c.relname <> ?
                """, SCHEMA, String.valueOf(partitions), FLYWAY_HISTORY)) {
            String oid = row.get(0);
            String name = row.get(1);
            boolean month = monthPartitions.containsKey(name);
            StringBuilder block = new StringBuilder("CREATE ")
                    .append("u".equals(row.get(3)) ? "UNLOGGED " : "").append("TABLE ").append(name);
            if (partitions) {
                String bound = row.get(9);
                if (month) {
                    bound = BOUND_VALUE.matcher(bound).replaceAll("'<month>'");
                }
                block.append(" PARTITION OF ").append(row.get(8)).append(' ').append(bound);
            } else {
                block.append(" (\n").append(String.join(",\n", columns(oid))).append("\n)");
            }
            if (row.get(7) != null) {
                block.append(" PARTITION BY ").append(row.get(7));
            }
            if (row.get(6) != null && !row.get(6).isEmpty()) {
                block.append(" WITH (").append(row.get(6)).append(')');
            }
            block.append(';');
            if (row.get(10) != null) {
                block.append("\nCOMMENT ON TABLE ").append(name).append(" IS ").append(literal(row.get(10)))
                        .append(';');
            }
            if (!partitions) {
                for (List<String> comment : rows("""
                        SELECT a.attname, col_description(a.attrelid, a.attnum) FROM pg_attribute a
                         WHERE a.attrelid = ?::oid AND a.attnum > 0 AND NOT a.attisdropped
                           AND col_description(a.attrelid, a.attnum) IS NOT NULL""", oid)) {
                    block.append("\nCOMMENT ON COLUMN ").append(name).append('.').append(comment.get(0))
                            .append(" IS ").append(literal(comment.get(1))).append(';');
                }
            }
            appendAll(block, constraints(oid, name));
            appendAll(block, indexes(oid));
            appendAll(block, triggers(oid, name));
            if (flag(row.get(4))) {
                block.append("\nALTER TABLE ").append(name).append(" ENABLE ROW LEVEL SECURITY;");
            }
            if (flag(row.get(5))) {
                block.append("\nALTER TABLE ").append(name).append(" FORCE ROW LEVEL SECURITY;");
            }
            appendAll(block, policies(oid, name));
            appendAll(block, grants("TABLE " + name, """
                    SELECT c.relacl, pg_get_userbyid(c.relowner) FROM pg_class c WHERE c.oid = ?::oid""", oid));
            appendAll(block, columnGrants(oid, name));
            String key = month ? monthPartitions.get(name) : name;
            blocks.computeIfAbsent(key, k -> new TreeSet<>()).add(months(block.toString()));
        }
        List<String> all = new ArrayList<>();
        blocks.values().forEach(all::addAll);
        return all;
    }

    private List<String> columns(String table) throws SQLException {
        List<String> columns = new ArrayList<>();
        for (List<String> row : rows("""
                SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
                       pg_get_expr(d.adbin, d.adrelid), a.attidentity, a.attgenerated,
                       CASE WHEN a.attcollation <> t.typcollation
                            THEN (SELECT collname FROM pg_collation WHERE oid = a.attcollation) END
                  FROM pg_attribute a
                  JOIN pg_type t ON t.oid = a.atttypid
                  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                 WHERE a.attrelid = ?::oid AND a.attnum > 0 AND NOT a.attisdropped
                 ORDER BY a.attnum""", table)) {
            StringBuilder column = new StringBuilder("    ").append(row.get(0)).append(' ').append(row.get(1));
            if (row.get(6) != null) {
                column.append(" COLLATE ").append(row.get(6));
            }
            switch (row.get(4)) {
                case "a" -> column.append(" GENERATED ALWAYS AS IDENTITY");
                case "d" -> column.append(" GENERATED BY DEFAULT AS IDENTITY");
                default -> {
                }
            }
            if ("s".equals(row.get(5))) {
                column.append(" GENERATED ALWAYS AS (").append(row.get(3)).append(") STORED");
            } else if (row.get(3) != null) {
                column.append(" DEFAULT ").append(row.get(3));
            }
            if (flag(row.get(2))) {
                column.append(" NOT NULL");
            }
            columns.add(column.toString());
        }
        return columns;
    }

    /** The table's own constraints; one a partition has from its parent is the parent's. */
    private List<String> constraints(String table, String name) throws SQLException {
        List<String> lines = new ArrayList<>();
        for (List<String> row : rows("""
                SELECT conname, pg_get_constraintdef(oid)
                  FROM pg_constraint
                 WHERE conrelid = ?::oid AND contype IN ('p', 'u', 'f', 'c', 'x', 't')
                   AND conparentid = 0 AND coninhcount = 0""", table)) {
            lines.add("ALTER TABLE " + name + " ADD CONSTRAINT " + row.get(0) + " " + row.get(1) + ";");
        }
        return lines;
    }

    /** Indexes other than those of constraints and those a partition has from its parent. */
    private List<String> indexes(String table) throws SQLException {
        List<String> lines = new ArrayList<>();
        for (List<String> row : rows("""
                SELECT pg_get_indexdef(i.indexrelid)
                  FROM pg_index i
                 WHERE i.indrelid = ?::oid
                   AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid
                                      AND k.conrelid = i.indrelid AND k.contype IN ('p', 'u', 'x'))
                   AND NOT EXISTS (SELECT 1 FROM pg_inherits h WHERE h.inhrelid = i.indexrelid)""", table)) {
            lines.add(row.get(0) + ";");
        }
        return lines;
    }

    private List<String> triggers(String table, String name) throws SQLException {
        List<String> lines = new ArrayList<>();
        for (List<String> row : rows("""
                SELECT pg_get_triggerdef(t.oid), t.tgname, t.tgenabled
                  FROM pg_trigger t
                 WHERE t.tgrelid = ?::oid AND NOT t.tgisinternal AND t.tgparentid = 0""", table)) {
            lines.add(row.get(0) + ";");
            switch (row.get(2)) {
                case "D" -> lines.add("ALTER TABLE " + name + " DISABLE TRIGGER " + row.get(1) + ";");
                case "A" -> lines.add("ALTER TABLE " + name + " ENABLE ALWAYS TRIGGER " + row.get(1) + ";");
                case "R" -> lines.add("ALTER TABLE " + name + " ENABLE REPLICA TRIGGER " + row.get(1) + ";");
                default -> {
                }
            }
        }
        return lines;
    }

    private List<String> policies(String table, String name) throws SQLException {
        List<String> lines = new ArrayList<>();
        for (List<String> row : rows("""
                SELECT p.polname, p.polpermissive, p.polcmd,
                       (SELECT string_agg(CASE WHEN r = 0 THEN 'public' ELSE pg_get_userbyid(r) END, ', '
                                          ORDER BY CASE WHEN r = 0 THEN 'public' ELSE pg_get_userbyid(r) END)
                          FROM unnest(p.polroles) r),
                       pg_get_expr(p.polqual, p.polrelid), pg_get_expr(p.polwithcheck, p.polrelid)
                  FROM pg_policy p
                 WHERE p.polrelid = ?::oid""", table)) {
            String command = switch (row.get(2)) {
                case "r" -> "SELECT";
                case "a" -> "INSERT";
                case "w" -> "UPDATE";
                case "d" -> "DELETE";
                default -> "ALL";
            };
            StringBuilder line = new StringBuilder("CREATE POLICY ").append(row.get(0)).append(" ON ").append(name)
                    .append(flag(row.get(1)) ? " AS PERMISSIVE" : " AS RESTRICTIVE").append(" FOR ").append(command)
                    .append(" TO ").append(row.get(3));
            if (row.get(4) != null) {
                line.append(" USING (").append(row.get(4)).append(')');
            }
            if (row.get(5) != null) {
                line.append(" WITH CHECK (").append(row.get(5)).append(')');
            }
            lines.add(line.append(';').toString());
        }
        return lines;
    }

    private List<String> columnGrants(String table, String name) throws SQLException {
        Map<String, Set<String>> columnsByGrant = new TreeMap<>();
        for (List<String> row : rows("""
                SELECT a.attname, x.privilege_type, x.grantee, x.is_grantable
                  FROM pg_attribute a, aclexplode(a.attacl) x
                 WHERE a.attrelid = ?::oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attacl IS NOT NULL""",
                table)) {
            String grantee = "0".equals(row.get(2)) ? "PUBLIC" : single("SELECT pg_get_userbyid(?::oid)", row.get(2));
            String key = row.get(1) + "\t" + roleName(grantee) + (flag(row.get(3)) ? " WITH GRANT OPTION" : "");
            columnsByGrant.computeIfAbsent(key, k -> new TreeSet<>()).add(row.get(0));
        }
        List<String> lines = new ArrayList<>();
        columnsByGrant.forEach((key, columns) -> {
            String[] parts = key.split("\t");
            lines.add("GRANT " + parts[0] + " (" + String.join(", ", columns) + ") ON TABLE " + name + " TO "
                    + parts[1] + ";");
        });
        return lines;
    }

    private Iterable<String> views() throws SQLException {
        Map<String, String> blocks = new TreeMap<>();
        for (List<String> row : rows("""
                SELECT c.oid, c.relname, c.relkind, array_to_string(c.reloptions, ', '), pg_get_viewdef(c.oid, true)
                  FROM pg_class c
                 WHERE c.relnamespace = CAST(? AS regnamespace) AND c.relkind IN ('v', 'm')""", SCHEMA)) {
            StringBuilder block = new StringBuilder("CREATE ")
                    .append("m".equals(row.get(2)) ? "MATERIALIZED VIEW " : "VIEW ").append(row.get(1));
            if (row.get(3) != null && !row.get(3).isEmpty()) {
                block.append(" WITH (").append(row.get(3)).append(')');
            }
            block.append(" AS\n").append(row.get(4).stripTrailing());
            if (!row.get(4).stripTrailing().endsWith(";")) {
                block.append(';');
            }
            if ("m".equals(row.get(2))) {
                appendAll(block, indexes(row.get(0)));
            }
            appendAll(block, grants("TABLE " + row.get(1), """
                    SELECT c.relacl, pg_get_userbyid(c.relowner) FROM pg_class c WHERE c.oid = ?::oid""",
                    row.get(0)));
            blocks.put(row.get(1), block.toString());
        }
        return blocks.values();
    }

    // --------------------------------------------------------------------------------------------------- grants

    /**
     * The grants of one object's access list, the owner's own left out (it is the owner's by default). An object
     * with no list has the defaults and prints nothing; a function whose list no longer grants PUBLIC its default
     * EXECUTE prints the REVOKE that took it.
     */
    private List<String> grants(String object, String aclQuery, String argument) throws SQLException {
        List<List<String>> found = rows(aclQuery, argument);
        List<String> lines = new ArrayList<>();
        if (found.isEmpty() || found.get(0).get(0) == null) {
            return lines;
        }
        String owner = found.get(0).get(1);
        Map<String, Set<String>> privilegesByGrantee = new TreeMap<>();
        for (List<String> row : rows("""
                SELECT CASE WHEN x.grantee = 0 THEN 'PUBLIC' ELSE pg_get_userbyid(x.grantee) END,
                       x.privilege_type, x.is_grantable
                  FROM aclexplode(CAST(? AS aclitem[])) x""", found.get(0).get(0))) {
            if (row.get(0).equals(owner)) {
                continue;
            }
            String grantee = roleName(row.get(0)) + (flag(row.get(2)) ? " WITH GRANT OPTION" : "");
            privilegesByGrantee.computeIfAbsent(grantee, k -> new TreeSet<>()).add(row.get(1));
        }
        if (object.startsWith("FUNCTION ") || object.startsWith("PROCEDURE ")) {
            if (!privilegesByGrantee.containsKey("PUBLIC")) {
                lines.add("REVOKE EXECUTE ON " + object + " FROM PUBLIC;");
            } else {
                privilegesByGrantee.remove("PUBLIC"); // the default
            }
        }
        privilegesByGrantee.forEach((grantee, privileges) -> {
            String[] parts = grantee.split(" ", 2);
            lines.add("GRANT " + String.join(", ", privileges) + " ON " + object + " TO " + parts[0]
                    + (parts.length > 1 ? " " + parts[1] : "") + ";");
        });
        return lines;
    }

    // ------------------------------------------------------------------------------------------ names and rows

    private String roleName(String role) {
        return role.equals(login) ? "<login>" : role;
    }

    /** The text with every month partition's name replaced by its placeholder. */
    private String months(String text) {
        String result = text;
        for (Map.Entry<String, String> partition : monthPartitions.entrySet()) {
            result = result.replaceAll("\\b" + Pattern.quote(partition.getKey()), partition.getValue());
        }
        return result;
    }

    private static void appendAll(StringBuilder block, List<String> lines) {
        lines.stream().sorted().forEach(line -> block.append('\n').append(line));
    }

    private static boolean flag(String value) {
        return "t".equals(value) || "true".equals(value);
    }

    private static String literal(String text) {
        return "'" + text.replace("'", "''") + "'";
    }

    private String single(String sql, String... arguments) throws SQLException {
        return rows(sql, arguments).get(0).get(0);
    }

    private List<List<String>> rows(String sql, String... arguments) throws SQLException {
        List<List<String>> rows = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < arguments.length; i++) {
                statement.setString(i + 1, arguments[i]);
            }
            try (ResultSet result = statement.executeQuery()) {
                int columns = result.getMetaData().getColumnCount();
                while (result.next()) {
                    String[] row = new String[columns];
                    for (int c = 0; c < columns; c++) {
                        row[c] = result.getString(c + 1);
                    }
                    rows.add(Arrays.asList(row));
                }
            }
        }
        return rows;
    }
}
