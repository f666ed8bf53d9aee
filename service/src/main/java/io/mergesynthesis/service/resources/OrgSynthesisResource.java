package io.mergesynthesis.service.resources;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.auth.Auth;
import io.mergesynthesis.service.api.ErrorBody;
import io.mergesynthesis.service.api.ErrorBody.FieldProblem;
import io.mergesynthesis.service.api.OrgSynthesisView;
import io.mergesynthesis.service.auth.Caller;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.core.Lane;
import io.mergesynthesis.service.core.ModelCatalog;
import io.mergesynthesis.service.core.SynthesisSettings;
import io.mergesynthesis.service.settings.ClaimWeight;
import io.mergesynthesis.service.settings.MonthlyBudget;
import io.mergesynthesis.service.settings.OrgSettings;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * An org's synthesis settings: a model override, a monthly budget and a weight (its share of the claims while
 * other orgs wait too). The platform sets them; the platform and
 * the org's own admins read them. Raising a budget lets the org's conflicts out of {@code waiting_budget} in the
 * same transaction, so they resume at once.
 */
@Path("/v1/orgs/{org_id}/synthesis")
@Produces(MediaType.APPLICATION_JSON)
public class OrgSynthesisResource {

    private static final Set<String> FIELDS = Set.of("model", "monthly_budget_usd", "weight", "lane");

    private final OrgSettings settings;

    public OrgSynthesisResource(OrgSettings settings) {
        this.settings = settings;
    }

    @GET
    @RolesAllowed({Role.PLATFORM_NAME, Role.ORG_ADMIN_NAME, Role.ORG_VIEWER_NAME})
    public Response get(@Auth Caller caller, @PathParam("org_id") String orgParam) {
        UUID org = orgId(orgParam);
        if (caller.role() != Role.PLATFORM && !org.equals(caller.orgId())) {
            // Another org's settings look exactly like an org that does not exist.
            return ErrorBody.response(Response.Status.NOT_FOUND, "no such org");
        }
        return Response.ok(OrgSynthesisView.of(settings.show(org))).build();
    }

    @PUT
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Role.PLATFORM_NAME)
    public Response put(@Auth Caller caller, @PathParam("org_id") String orgParam, JsonNode body) {
        UUID org = orgId(orgParam);
        if (body == null || body.isMissingNode() || body.isNull() || !body.isObject()) {
            return ErrorBody.response(Response.Status.BAD_REQUEST, "a JSON object is required: "
                    + "{\"model\": \"<provider>/<model>\" | null, \"monthly_budget_usd\": number | null, "
                    + "\"weight\": whole number from 1 to " + ClaimWeight.MAX + ", \"lane\": one of "
                    + Lane.wireNames() + "}");
        }
        List<FieldProblem> problems = new ArrayList<>();
        body.fieldNames().forEachRemaining(name -> {
            if (!FIELDS.contains(name)) {
                problems.add(new FieldProblem(name, "is not a synthesis setting; known: model, monthly_budget_usd, weight, lane"));
            }
        });
        String model = model(body.get("model"), problems);
        BigDecimal budget = budget(body.get("monthly_budget_usd"), problems);
        int weight = weight(body.get("weight"), problems);
        Lane lane = lane(body.get("lane"), problems);
        if (!problems.isEmpty()) {
            return ErrorBody.response(422, "invalid synthesis settings: nothing was changed", problems);
        }
        return Response.ok(OrgSynthesisView.of(settings.change(caller, org, model, budget, weight, lane))).build();
    }

    private String model(JsonNode node, List<FieldProblem> problems) {
        if (node == null || node.isNull()) {
            return null;
        }
        ModelCatalog models = settings.models();
        Optional<ModelCatalog.Unusable> unusable = node.isTextual() ? settings.unusable(node.textValue())
                : Optional.empty();
        if (!node.isTextual() || unusable.filter(u -> !u.configured()).isPresent()) {
            problems.add(new FieldProblem("model", "must be null or one of the configured models: "
                    + (models.names().isEmpty() ? "(none are configured)" : String.join(", ", models.names()))));
            return null;
        }
        if (unusable.isPresent()) {
            // Stored, it would only hold the org's conflicts back: refused now, with what would make it usable.
            problems.add(new FieldProblem("model", unusable.get().describe()
                    + "; GET /v1/models says which models are usable"));
            return null;
        }
        return node.textValue();
    }

    private static BigDecimal budget(JsonNode node, List<FieldProblem> problems) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isNumber()) {
            problems.add(new FieldProblem("monthly_budget_usd", "must be a number of US dollars, or null for none"));
            return null;
        }
        BigDecimal budget = node.decimalValue();
        String problem = MonthlyBudget.problem(budget);
        if (problem != null) {
            problems.add(new FieldProblem("monthly_budget_usd", problem));
            return null;
        }
        return budget;
    }

    /** The PUT replaces the settings: a weight left out is the default, as a model or a budget left out is. */
    private static int weight(JsonNode node, List<FieldProblem> problems) {
        if (node == null) {
            return SynthesisSettings.DEFAULT_WEIGHT;
        }
        String problem = ClaimWeight.problem(node);
        if (problem != null) {
            problems.add(new FieldProblem("weight", problem));
            return SynthesisSettings.DEFAULT_WEIGHT;
        }
        return node.intValue();
    }

    /** The PUT replaces the settings: a lane left out is the default, interactive. */
    private static Lane lane(JsonNode node, List<FieldProblem> problems) {
        if (node == null) {
            return Lane.INTERACTIVE;
        }
        Optional<Lane> lane = node.isTextual() ? Lane.fromWireName(node.textValue()) : Optional.empty();
        if (lane.isEmpty()) {
            problems.add(new FieldProblem("lane", "must be one of " + Lane.wireNames() + " (got " + node + ")"));
            return Lane.INTERACTIVE;
        }
        return lane.get();
    }

    private static UUID orgId(String text) {
        try {
            return Ids.parseUuid(text);
        } catch (IllegalArgumentException e) {
            throw ErrorBody.exception(Response.Status.BAD_REQUEST, "org id must be a UUID");
        }
    }
}
