package io.mergesynthesis.service.resources;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.auth.Auth;
import io.mergesynthesis.service.api.ErrorBody;
import io.mergesynthesis.service.api.OrgNameView;
import io.mergesynthesis.service.auth.Caller;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.core.OrgName;
import io.mergesynthesis.service.operator.OrgDirectory;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.UUID;

/**
 * An org's display name, which the platform gives: shown instead of the org's id on every page, and audited as an
 * {@code org_named} event in the org's stream.
 */
@Path("/v1/orgs/{org_id}/name")
@Produces(MediaType.APPLICATION_JSON)
public class OrgNameResource {

    private final OrgDirectory directory;

    public OrgNameResource(OrgDirectory directory) {
        this.directory = directory;
    }

    @PUT
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Role.PLATFORM_NAME)
    public Response put(@Auth Caller caller, @PathParam("org_id") String orgParam, JsonNode body) {
        UUID org;
        try {
            org = Ids.parseUuid(orgParam);
        } catch (IllegalArgumentException e) {
            return ErrorBody.response(Response.Status.BAD_REQUEST, "org id must be a UUID");
        }
        JsonNode name = body == null ? null : body.get("name");
        if (body == null || !body.isObject() || body.size() != 1 || name == null || !name.isTextual()) {
            return ErrorBody.response(Response.Status.BAD_REQUEST,
                    "a JSON object with one field is required: {\"name\": \"<1 to " + OrgName.MAX_LENGTH
                            + " characters>\"}");
        }
        try {
            OrgName stored = directory.name(caller, org, name.textValue());
            return Response.ok(new OrgNameView(org, stored.text())).build();
        } catch (OrgDirectory.NameTaken e) {
            return ErrorBody.response(Response.Status.CONFLICT, e.getMessage() + "; nothing was changed");
        } catch (IllegalArgumentException e) {
            return ErrorBody.response(422, "invalid name: nothing was changed",
                    List.of(new ErrorBody.FieldProblem("name", e.getMessage())));
        }
    }
}
