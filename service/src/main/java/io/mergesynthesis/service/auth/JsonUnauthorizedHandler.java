package io.mergesynthesis.service.auth;

import io.dropwizard.auth.UnauthorizedHandler;
import io.mergesynthesis.service.api.ErrorBody;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;

/** 401 in the API's own error shape, with the challenge a client expects. */
public final class JsonUnauthorizedHandler implements UnauthorizedHandler {

    @Override
    public Response buildResponse(String prefix, String realm) {
        Response json = ErrorBody.response(Response.Status.UNAUTHORIZED,
                "a valid bearer token is required (Authorization: Bearer msk_...)");
        return Response.fromResponse(json)
                .header(HttpHeaders.WWW_AUTHENTICATE, prefix + " realm=\"" + realm + "\"")
                .build();
    }
}
