package io.mergesynthesis.service.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.mergesynthesis.service.testing.TestDatabase;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.apache.tomcat.jdbc.pool.PoolExhaustedException;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/** Real failures from a real server and driver, told apart: the database being away, and everything else. */
class DatabaseUnavailableTest {

    private final TestDatabase database = TestDatabase.fresh();

    @Test
    void aServerThatIsNotThereIsUnavailable() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        String url = "jdbc:postgresql://localhost:" + closedPort + "/postgres";
        Throwable refused = catchThrowable(() -> DriverManager.getConnection(url, "postgres", ""));
        assertThat(DatabaseUnavailable.isCauseOf(refused)).isTrue();
        assertThat(DatabaseUnavailable.describe(refused)).contains("refused");

        // The same through JDBI and a wrapper of one's own, as the worker sees it.
        Throwable wrapped = catchThrowable(() -> Jdbi.create(url, "postgres", "")
                .withHandle(handle -> handle.createQuery("SELECT 1").mapTo(Integer.class).one()));
        assertThat(DatabaseUnavailable.isCauseOf(new IllegalStateException("claim failed", wrapped))).isTrue();
        assertThat(DatabaseUnavailable.describe(new IllegalStateException("claim failed", wrapped)))
                .contains("refused");
    }

    @Test
    void noConnectionSlotLeftIsUnavailable() throws Exception {
        String role = "starved_" + UUID.randomUUID().toString().replace("-", "");
        try (Connection admin = DriverManager.getConnection(database.url(), database.user(), "");
             Statement statement = admin.createStatement()) {
            statement.execute("CREATE ROLE " + role + " LOGIN CONNECTION LIMIT 0");
        }
        Throwable full = catchThrowable(() -> DriverManager.getConnection(database.url(), role, ""));
        assertThat(((SQLException) full).getSQLState()).isEqualTo("53300");
        assertThat(DatabaseUnavailable.isCauseOf(full)).isTrue();

        assertThat(DatabaseUnavailable.isCauseOf(new PoolExhaustedException("Timeout: Pool empty."))).isTrue();
    }

    @Test
    void aConnectionTheServerEndedIsUnavailable() throws Exception {
        try (Connection victim = DriverManager.getConnection(database.url(), database.user(), "");
             Connection admin = DriverManager.getConnection(database.url(), database.user(), "");
             Statement kill = admin.createStatement();
             Statement use = victim.createStatement()) {
            int pid;
            try (var rs = use.executeQuery("SELECT pg_backend_pid()")) {
                rs.next();
                pid = rs.getInt(1);
            }
            kill.execute("SELECT pg_terminate_backend(" + pid + ")");
            Throwable ended = catchThrowable(() -> use.executeQuery("SELECT 1"));
            assertThat(DatabaseUnavailable.isCauseOf(ended)).as(String.valueOf(ended)).isTrue();
        }
    }

    @Test
    void aStatementThatIsWrongIsNot() throws Exception {
        Jdbi jdbi = database.jdbi();
        Throwable syntax = catchThrowable(() -> jdbi.useHandle(handle -> handle.execute("SELEC 1")));
        Throwable duplicate = catchThrowable(() -> jdbi.useHandle(handle -> {
            handle.execute("CREATE TEMP TABLE t (id int PRIMARY KEY)");
            handle.execute("INSERT INTO t VALUES (1), (1)");
        }));
        Throwable forbidden = catchThrowable(() -> jdbi.useHandle(handle -> {
            handle.execute("SET ROLE " + ScopedTransactions.TENANT_ROLE);
            handle.execute("INSERT INTO api_tokens (id, token_sha256, role) VALUES (gen_random_uuid(), "
                    + "'\\x00', 'platform')");
        }));
        assertThat(syntax).isNotNull();
        assertThat(duplicate).isNotNull();
        assertThat(forbidden).isNotNull();
        assertThat(DatabaseUnavailable.isCauseOf(syntax)).isFalse();
        assertThat(DatabaseUnavailable.isCauseOf(duplicate)).isFalse();
        assertThat(DatabaseUnavailable.isCauseOf(forbidden)).isFalse();
        assertThat(DatabaseUnavailable.isCauseOf(new IllegalStateException("no cause at all"))).isFalse();
        assertThat(DatabaseUnavailable.describe(new IllegalStateException("no cause at all")))
                .isEqualTo("no cause at all");
    }
}
