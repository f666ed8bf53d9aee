package io.mergesynthesis.service.resources;

import io.dropwizard.auth.Auth;
import io.mergesynthesis.service.api.ErrorBody;
import io.mergesynthesis.service.api.UsageView;
import io.mergesynthesis.service.auth.Caller;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.core.ModelCatalog;
import io.mergesynthesis.service.usage.MonthToDate;
import io.mergesynthesis.service.usage.MonthlyUsage;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Optional;
import java.util.UUID;

/** Month-to-date provider usage from the ledger, and the configured models with their prices. */
@Path("/v1")
@Produces(MediaType.APPLICATION_JSON)
public class UsageResource {

    private final MonthlyUsage usage;
    private final ModelCatalog models;

    public UsageResource(MonthlyUsage usage, ModelCatalog models) {
        this.usage = usage;
        this.models = models;
    }

    /** An org admin sees its own org; the platform every org together, or one with {@code org_id}. */
    @GET
    @Path("/usage")
    @RolesAllowed({Role.PLATFORM_NAME, Role.ORG_ADMIN_NAME, Role.ORG_VIEWER_NAME})
    public Response usage(@Auth Caller caller, @QueryParam("org_id") String orgParam) {
        Optional<UUID> org;
        if (caller.role() == Role.PLATFORM) {
            org = orgParam == null ? Optional.empty() : Optional.of(orgId(orgParam));
        } else {
            if (orgParam != null && !orgParam.equalsIgnoreCase(caller.orgId().toString())) {
                return ErrorBody.response(Response.Status.FORBIDDEN,
                        "an " + caller.role().wireName() + " token reads its own org's usage only; leave org_id out");
            }
            org = Optional.of(caller.orgId());
        }
        UsageView view;
        if (org.isPresent()) {
            MonthToDate one = usage.ofOrg(org.get());
            view = UsageView.of(org.get(), one.monthStart(), one.settings().monthlyBudgetUsd(), one.byModel(),
                    one.byLane());
        } else {
            MonthToDate all = usage.ofEveryOrg();
            view = UsageView.of(null, all.monthStart(), null, all.byModel(), all.byLane());
        }
        return Response.ok(view).build();
    }

    @GET
    @Path("/models")
    @RolesAllowed({Role.PLATFORM_NAME, Role.ORG_ADMIN_NAME, Role.ORG_VIEWER_NAME})
    public Response models() {
        return Response.ok(models).build();
    }

    private static UUID orgId(String text) {
        try {
            return Ids.parseUuid(text);
        } catch (IllegalArgumentException e) {
            throw ErrorBody.exception(Response.Status.BAD_REQUEST, "org_id must be a UUID");
        }
    }
}
