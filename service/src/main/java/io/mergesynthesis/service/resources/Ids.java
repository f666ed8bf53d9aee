package io.mergesynthesis.service.resources;

import io.mergesynthesis.service.api.ErrorBody;
import jakarta.ws.rs.core.Response;
import java.util.UUID;

/** Path ids: a malformed one is a 400; a missing one and another org's one are the same 404. */
final class Ids {

    private Ids() {
    }

    static UUID parse(String text) {
        try {
            return parseUuid(text);
        } catch (IllegalArgumentException e) {
            throw ErrorBody.exception(Response.Status.BAD_REQUEST, "conflict id must be a UUID");
        }
    }

    /** A UUID in its canonical 36-character form (any case); {@link UUID#fromString} alone accepts more. */
    static UUID parseUuid(String text) {
        UUID id = UUID.fromString(text);
        if (!id.toString().equalsIgnoreCase(text)) {
            throw new IllegalArgumentException("not a canonical UUID: " + text);
        }
        return id;
    }

    static Response notFound() {
        return ErrorBody.response(Response.Status.NOT_FOUND, "no such conflict");
    }
}
