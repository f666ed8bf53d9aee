package io.mergesynthesis.service.http;

import io.mergesynthesis.service.api.ErrorBody;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.io.CharConversionException;

/**
 * A body whose bytes are not text in the Unicode encoding they start like (Jackson reads UTF-16 and UTF-32
 * as well as UTF-8): 400. The decoder raises an IOException of its own, which otherwise became a 500.
 */
public final class UndecodableTextMapper implements ExceptionMapper<CharConversionException> {

    @Override
    public Response toResponse(CharConversionException e) {
        return ErrorBody.response(Response.Status.BAD_REQUEST,
                "request body is not valid Unicode text: " + e.getMessage() + "; send JSON in UTF-8");
    }
}
