package io.mergesynthesis.service.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.api.ErrorBody;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.time.Clock;
import org.jdbi.v3.core.ConnectionException;
import org.junit.jupiter.api.Test;

class DatabaseUnavailableMapperTest {

    private final DatabaseUnavailableMapper mapper = new DatabaseUnavailableMapper(Clock.systemUTC());

    @Test
    void aDatabaseThatIsAwayIsA503WithRetryAfter() {
        Response response = mapper.toResponse(new ConnectionException(
                new SQLException("FATAL: the database system is shutting down", "57P01")));

        assertThat(response.getStatus()).isEqualTo(503);
        assertThat(response.getHeaderString(HttpHeaders.RETRY_AFTER)).isEqualTo("5");
        assertThat(response.getEntity()).isInstanceOfSatisfying(ErrorBody.class, body -> {
            assertThat(body.code()).isEqualTo(503);
            assertThat(body.message()).contains("database is unavailable");
        });
    }

    @Test
    void refusedConnectionsAndFullServersCountAsAway() {
        assertThat(mapper.toResponse(new ConnectionException(
                new SQLException("Connection to localhost:5432 refused", "08001"))).getStatus()).isEqualTo(503);
        assertThat(mapper.toResponse(new ConnectionException(
                new SQLException("FATAL: sorry, too many clients already", "53300"))).getStatus()).isEqualTo(503);
    }

    @Test
    void anyOtherDatabaseErrorStaysA500() {
        Response response = mapper.toResponse(new ConnectionException(
                new SQLException("relation \"nope\" does not exist", "42P01")));

        assertThat(response.getStatus()).isEqualTo(500);
        assertThat(response.getHeaderString(HttpHeaders.RETRY_AFTER)).isNull();
    }
}
