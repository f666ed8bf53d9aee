package io.mergesynthesis.service.testing;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;
import java.util.function.Function;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.ColonPrefixSqlParser;
import org.jdbi.v3.core.statement.ParsedSql;

/** The plan PostgreSQL makes for one of the service's statements, with the values a test gives its parameters. */
public final class Explain {

    private Explain() {
    }

    /**
     * {@code EXPLAIN} of {@code sql} (written with the service's {@code :name} parameters) on {@code handle}, in its
     * transaction and role, each parameter bound to {@code valueOf} its name. A null value is bound as a null of the
     * type the service would bind there, so that the planner sees the statement as it runs.
     */
    public static String plan(Handle handle, String sql, Function<String, Object> valueOf) {
        ParsedSql parsed = new ColonPrefixSqlParser().parse(sql, null);
        List<String> names = parsed.getParameters().getParameterNames();
        try (PreparedStatement explain = handle.getConnection().prepareStatement("EXPLAIN " + parsed.getSql())) {
            for (int i = 0; i < names.size(); i++) {
                Object value = valueOf.apply(names.get(i));
                if (value == null) {
                    explain.setNull(i + 1, switch (names.get(i)) {
                        case "positionReceivedAt" -> Types.TIMESTAMP_WITH_TIMEZONE;
                        case "positionConflict" -> Types.OTHER;
                        default -> Types.VARCHAR;
                    });
                } else {
                    explain.setObject(i + 1, value);
                }
            }
            StringBuilder text = new StringBuilder();
            try (ResultSet rs = explain.executeQuery()) {
                while (rs.next()) {
                    text.append(rs.getString(1)).append('\n');
                }
            }
            return text.toString();
        } catch (SQLException e) {
            throw new IllegalStateException("EXPLAIN failed: " + e.getMessage(), e);
        }
    }
}
