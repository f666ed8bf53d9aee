package io.mergesynthesis.service.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * The 409 answer to an inbox action that contradicts the conflict's committed state: why, and the state
 * itself, so that the inbox can show what won without another request.
 */
@JsonPropertyOrder({"code", "message", "conflict"})
public record RefusedAction(
        @JsonProperty("code") int code,
        @JsonProperty("message") String message,
        @JsonProperty("conflict") ConflictView conflict) {

    public static Response response(String message, ConflictView current) {
        return Response.status(Response.Status.CONFLICT)
                .type(MediaType.APPLICATION_JSON_TYPE)
                .entity(new RefusedAction(409, message, current))
                .build();
    }
}
