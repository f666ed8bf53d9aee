package io.mergesynthesis.service.web;

import io.mergesynthesis.service.core.ModelCatalog;
import io.mergesynthesis.service.db.OrgSynthesisSettings;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.db.UsageLedger;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.CookieParam;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * The operator pages, for platform sessions only: the fleet at a glance, every org's spend against its budget,
 * budgets and models editable, and a read-only look at any org's inbox.
 */
@Path("/operator")
@Produces(MediaType.TEXT_HTML)
public final class OperatorResource {

    /** Attempt history counted on the page: the last day. */
    static final Duration RECENT = Duration.ofHours(24);
    /** Budgets above this are typing mistakes, not budgets. */
    static final BigDecimal MAX_BUDGET = new BigDecimal("1000000000");

    private final Pages pages;
    private final ScopedTransactions transactions;
    private final ModelCatalog models;
    private final Consumer<UUID> settingsChanged;

    OperatorResource(Pages pages, ScopedTransactions transactions, ModelCatalog models,
                     Consumer<UUID> settingsChanged) {
        this.settingsChanged = settingsChanged;
        this.pages = pages;
        this.transactions = transactions;
        this.models = models;
    }

    @GET
    public Response overview(@CookieParam(SessionCookies.SESSION) String cookie, @QueryParam("notice") String notice) {
        Optional<WebSession> found = pages.session(cookie);
        if (found.isEmpty()) {
            return Pages.toSignIn();
        }
        WebSession session = found.get();
        if (!session.platform()) {
            return operatorsOnly(session);
        }
        Layout layout = Layout.of("Operator", "operator", session).withNotice(Notice.fromCode(notice).orElse(null));
        return page(200, session, layout);
    }

    private Response page(int status, WebSession session, Layout layout) {
        Instant now = pages.clock().instant();
        FleetOverview fleet = transactions.crossTenant(handle -> FleetOverview.read(handle,
                UsageLedger.monthStart(handle), now.minus(RECENT)));
        OperatorPage page = OperatorPage.of(fleet, models,
                session.viewingOrg() == null ? null : session.viewingOrg().toString());
        return pages.render(status, "operator", layout, page);
    }

    @POST
    @Path("synthesis")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Response saveSettings(@CookieParam(SessionCookies.SESSION) String cookie,
                                 @FormParam("form_key") String formKey, @FormParam("org") String orgParam,
                                 @FormParam("model") String modelParam, @FormParam("monthly_budget_usd") String budgetParam,
                                 @Context HttpHeaders headers) {
        Optional<WebSession> found = pages.session(cookie);
        if (found.isEmpty()) {
            return Pages.toSignIn();
        }
        WebSession session = found.get();
        if (!session.platform()) {
            return operatorsOnly(session);
        }
        if (!FormGuard.accepts(headers, session.formKey(), formKey)) {
            return pages.forbiddenForm(session);
        }
        UUID org = Labels.uuid(orgParam == null ? null : orgParam.strip().toLowerCase(java.util.Locale.ROOT));
        if (org == null) {
            return back(Notice.INVALID_ORG);
        }
        String model = modelParam == null || modelParam.isBlank() ? null : modelParam.strip();
        Optional<ModelCatalog.Unusable> unusable = model == null ? Optional.empty() : models.unusable(model);
        if (unusable.isPresent() && !unusable.get().configured()) {
            return back(Notice.INVALID_MODEL);
        }
        if (unusable.isPresent()) {
            // The same rule as the API's: a model this replica cannot call is refused, saying what would fix it.
            return page(422, session, Layout.of("Operator", "operator", session)
                    .withProblem("Not saved: " + unusable.get().describe() + "."));
        }
        BigDecimal budget;
        try {
            budget = budget(budgetParam);
        } catch (IllegalArgumentException e) {
            return back(Notice.INVALID_BUDGET);
        }
        // The same write as PUT /v1/orgs/{org_id}/synthesis: a budget raised here lets the org's waiting
        // conflicts go at once.
        transactions.inOrg(org, handle -> {
            OrgSynthesisSettings.put(handle, org, model, budget);
            return OrgSynthesisSettings.resumeWaiting(handle, Optional.of(org));
        });
        settingsChanged.accept(org);
        return back(Notice.SETTINGS_SAVED);
    }

    @POST
    @Path("view")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Response view(@CookieParam(SessionCookies.SESSION) String cookie, @FormParam("form_key") String formKey,
                         @FormParam("org") String orgParam, @Context HttpHeaders headers) {
        Optional<WebSession> found = pages.session(cookie);
        if (found.isEmpty()) {
            return Pages.toSignIn();
        }
        WebSession session = found.get();
        if (!session.platform()) {
            return operatorsOnly(session);
        }
        if (!FormGuard.accepts(headers, session.formKey(), formKey)) {
            return pages.forbiddenForm(session);
        }
        UUID org = Labels.uuid(orgParam == null ? null : orgParam.strip().toLowerCase(java.util.Locale.ROOT));
        if (org == null) {
            return back(Notice.INVALID_ORG);
        }
        pages.sessions().view(session, org);
        return Pages.seeOther("/");
    }

    /** Empty means no budget; otherwise dollars, at least 0, at most six decimals (the column's scale). */
    static BigDecimal budget(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        BigDecimal value;
        try {
            value = new BigDecimal(text.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a number", e);
        }
        if (value.signum() < 0 || value.compareTo(MAX_BUDGET) > 0 || value.stripTrailingZeros().scale() > 6) {
            throw new IllegalArgumentException("out of range");
        }
        return value;
    }

    private Response operatorsOnly(WebSession session) {
        return pages.message(403, session, "Operators only",
                "The operator pages are for platform tokens. Your inbox is on the Inbox page.");
    }

    private static Response back(Notice notice) {
        return Pages.seeOther("/operator?notice=" + notice.code());
    }
}
