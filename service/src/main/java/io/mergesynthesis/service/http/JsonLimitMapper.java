package io.mergesynthesis.service.http;

import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import io.mergesynthesis.service.api.ErrorBody;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;

/**
 * A body past one of the JSON parser's limits (nesting depth, the length of a number, a string or a name):
 * 400 saying which limit. Dropwizard's own answer is "Unable to process JSON", which names nothing to fix.
 */
public final class JsonLimitMapper implements ExceptionMapper<StreamConstraintsException> {

    @Override
    public Response toResponse(StreamConstraintsException e) {
        // Jackson's text ends by naming its own setting, which means nothing to a client.
        String limit = e.getOriginalMessage().replaceAll(", from `[^`]*`", "");
        return ErrorBody.response(Response.Status.BAD_REQUEST, "request body is beyond what this API parses: " + limit);
    }
}
