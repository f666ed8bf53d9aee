package io.mergesynthesis.service.http;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParseException;
import io.mergesynthesis.service.api.ErrorBody;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;

/**
 * A request body that is not JSON at all: 400, saying where parsing stopped. Dropwizard's own mapper answers
 * with a generic text; a client fixing its payload wants the line and column.
 */
public final class MalformedJsonMapper implements ExceptionMapper<JsonParseException> {

    @Override
    public Response toResponse(JsonParseException e) {
        JsonLocation at = e.getLocation();
        String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
        return ErrorBody.response(Response.Status.BAD_REQUEST,
                "request body is not valid JSON" + where + ": " + e.getOriginalMessage());
    }
}
