package io.mergesynthesis.service.resources;

import io.dropwizard.auth.Auth;
import io.mergesynthesis.service.api.BatchView;
import io.mergesynthesis.service.api.ErrorBody;
import io.mergesynthesis.service.auth.Caller;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.operator.BatchAdmin;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Map;
import java.util.UUID;

/**
 * The batch lane's batches, for the platform: {@code GET /v1/batches} lists the newest of every org, and
 * {@code POST /v1/batches/{id}/cancel} asks that one be canceled at its provider.
 */
@Path("/v1/batches")
@Produces(MediaType.APPLICATION_JSON)
public class BatchResource {

    private final BatchAdmin batches;

    public BatchResource(BatchAdmin batches) {
        this.batches = batches;
    }

    @GET
    @RolesAllowed(Role.PLATFORM_NAME)
    public Map<String, Object> list() {
        return Map.of("batches", batches.recent().stream().map(BatchView::of).toList());
    }

    @POST
    @Path("/{id}/cancel")
    @RolesAllowed(Role.PLATFORM_NAME)
    public Response cancel(@Auth Caller caller, @PathParam("id") String idParam) {
        UUID id;
        try {
            id = Ids.parseUuid(idParam);
        } catch (IllegalArgumentException e) {
            return ErrorBody.response(Response.Status.BAD_REQUEST, "batch id must be a UUID");
        }
        return batches.cancel(caller, id)
                .map(batch -> batch.done()
                        ? ErrorBody.response(Response.Status.CONFLICT, "batch " + id + " is done: its results are "
                                + "stored and there is nothing left to cancel")
                        : Response.accepted(BatchView.of(batch)).build())
                .orElseGet(() -> ErrorBody.response(Response.Status.NOT_FOUND, "no batch " + id));
    }
}
