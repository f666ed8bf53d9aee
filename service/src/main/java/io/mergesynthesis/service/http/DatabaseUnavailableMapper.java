package io.mergesynthesis.service.http;

import io.dropwizard.jersey.errors.LoggingExceptionMapper;
import io.mergesynthesis.service.api.ErrorBody;
import io.mergesynthesis.service.db.DatabaseUnavailable;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.jdbi.v3.core.JdbiException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A request that failed because the database is away (restarting, unreachable, out of connection slots) is
 * answered 503 with {@code Retry-After}, not 500: the client did nothing wrong and the same request will work
 * in a moment, which a client or a load balancer can only tell from the status. Such failures come in floods
 * (every request fails alike), so they are logged as one line now and then with a count, not one stack trace
 * per request. Any other database error is left to Dropwizard's mapper: a 500 with an id, and its stack trace
 * logged under that id.
 */
public final class DatabaseUnavailableMapper implements ExceptionMapper<JdbiException> {

    private static final Logger LOG = LoggerFactory.getLogger(DatabaseUnavailableMapper.class);
    static final int RETRY_AFTER_SECONDS = 5;
    private static final Duration LOG_EVERY = Duration.ofSeconds(30);

    private final LoggingExceptionMapper<JdbiException> otherwise = new LoggingExceptionMapper<>() { };
    private final Clock clock;
    private Instant lastLogged;
    private long unlogged;

    public DatabaseUnavailableMapper(Clock clock) {
        this.clock = clock;
    }

    @Override
    public Response toResponse(JdbiException e) {
        if (!DatabaseUnavailable.isCauseOf(e)) {
            return otherwise.toResponse(e);
        }
        logThrottled(e);
        Response response = ErrorBody.response(Response.Status.SERVICE_UNAVAILABLE,
                "the database is unavailable; try again in a few seconds");
        return Response.fromResponse(response).header(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS).build();
    }

    private synchronized void logThrottled(JdbiException e) {
        Instant now = clock.instant();
        unlogged++;
        if (lastLogged != null && now.isBefore(lastLogged.plus(LOG_EVERY))) {
            return;
        }
        LOG.warn("Answering 503: the database is unavailable ({}); {} request(s) so answered since the last "
                + "such line", DatabaseUnavailable.describe(e), unlogged);
        lastLogged = now;
        unlogged = 0;
    }
}
