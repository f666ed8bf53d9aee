package io.mergesynthesis.service.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;

/** The body of every error the API returns: the status, what was wrong, and for invalid input each field. */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record ErrorBody(
        @JsonProperty("code") int code,
        @JsonProperty("message") String message,
        @JsonProperty("errors") List<FieldProblem> errors) {

    public record FieldProblem(@JsonProperty("field") String field, @JsonProperty("message") String message) {
    }

    public static Response response(Response.Status status, String message) {
        return response(status.getStatusCode(), message, List.of());
    }

    /**
     * The most field problems one answer lists. A body of thousands of bad fields (easy to send within the size
     * limit) would otherwise get an answer larger than itself; the first ones are enough to fix a client, and
     * the message says how many there were.
     */
    public static final int MOST_PROBLEMS_LISTED = 100;

    public static Response response(int status, String message, List<FieldProblem> errors) {
        String said = message;
        List<FieldProblem> listed = errors;
        if (errors.size() > MOST_PROBLEMS_LISTED) {
            said = message + " (the first " + MOST_PROBLEMS_LISTED + " of " + errors.size() + " problems are listed)";
            listed = List.copyOf(errors.subList(0, MOST_PROBLEMS_LISTED));
        }
        return Response.status(status)
                .type(MediaType.APPLICATION_JSON_TYPE)
                .entity(new ErrorBody(status, said, listed))
                .build();
    }

    /** An exception that becomes this error, for code paths that cannot return a response. */
    public static WebApplicationException exception(Response.Status status, String message) {
        return new WebApplicationException(message, response(status, message));
    }
}
