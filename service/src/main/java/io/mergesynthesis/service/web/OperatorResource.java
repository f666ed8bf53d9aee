package io.mergesynthesis.service.web;

import io.mergesynthesis.service.core.FleetOverview;
import io.mergesynthesis.service.core.ModelCatalog;
import io.mergesynthesis.service.operator.Fleet;
import io.mergesynthesis.service.operator.OrgDirectory;
import io.mergesynthesis.service.session.WebSession;
import io.mergesynthesis.service.settings.MonthlyBudget;
import io.mergesynthesis.service.settings.OrgSettings;
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
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;

/**
 * The operator pages, for platform sessions only: the fleet at a glance, every org's spend against its budget,
 * budgets and models editable, and a read-only look at any org's inbox.
 */
@Path("/operator")
@Produces(MediaType.TEXT_HTML)
public final class OperatorResource {

    private final Pages pages;
    private final Fleet fleet;
    private final OrgSettings settings;
    private final OrgDirectory orgs;

    OperatorResource(Pages pages, Fleet fleet, OrgSettings settings, OrgDirectory orgs) {
        this.pages = pages;
        this.fleet = fleet;
        this.settings = settings;
        this.orgs = orgs;
    }

    /** Orgs per page of the list: a thousand orgs read as fifty pages, or one search away. */
    static final int ORGS_PER_PAGE = 20;
    /** The longest search taken: longer than any name or id. */
    static final int SEARCH_MAX = 100;

    @GET
    public Response overview(@CookieParam(SessionCookies.SESSION) String cookie, @QueryParam("notice") String notice,
                             @QueryParam("q") String search, @QueryParam("from") String from,
                             @QueryParam("sort") String sort) {
        Optional<WebSession> found = pages.session(cookie);
        if (found.isEmpty()) {
            return Pages.toSignIn();
        }
        WebSession session = found.get();
        if (!session.platform()) {
            return operatorsOnly(session);
        }
        Layout layout = Layout.of("Operator", "operator", session).withNotice(Notice.fromCode(notice).orElse(null));
        return page(200, session, layout, search, from, FleetOverview.OrgOrder.ofQuery(sort));
    }

    private Response page(int status, WebSession session, Layout layout, String search, String from,
                          FleetOverview.OrgOrder order) {
        String q = search == null ? "" : search.strip();
        if (q.length() > SEARCH_MAX) {
            q = q.substring(0, SEARCH_MAX);
        }
        int offset = offset(from);
        FleetOverview overview = fleet.overview(pages.clock().instant(),
                new FleetOverview.OrgPage(q, offset, ORGS_PER_PAGE, order));
        OperatorPage.OrgListing listing = new OperatorPage.OrgListing(q, order,
                offset == 0 ? null : Integer.toString(Math.max(0, offset - ORGS_PER_PAGE)),
                overview.moreOrgs() ? Integer.toString(offset + ORGS_PER_PAGE) : null);
        UUID viewing = session.viewingOrg();
        OperatorPage page = OperatorPage.of(overview, settings.models(), viewing == null ? null : viewing.toString(),
                listing);
        return pages.render(status, "operator", layout, page,
                new ViewingOrg(viewing == null ? null : OrgLabel.of(viewing, orgs.nameOf(viewing).orElse(null))));
    }

    /** The org the session views, named. */
    record ViewingOrg(OrgLabel viewingLabel) {
    }

    /** A page's first row; anything but a small whole number reads as the first page. */
    private static int offset(String from) {
        if (from == null || !from.matches("\\d{1,6}")) {
            return 0;
        }
        return Integer.parseInt(from);
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
        UUID org = CanonicalIds.uuid(orgParam == null ? null : orgParam.strip().toLowerCase(Locale.ROOT));
        if (org == null) {
            return back(Notice.INVALID_ORG);
        }
        String model = modelParam == null || modelParam.isBlank() ? null : modelParam.strip();
        Optional<ModelCatalog.Unusable> unusable = model == null ? Optional.empty() : settings.unusable(model);
        if (unusable.isPresent() && !unusable.get().configured()) {
            return back(Notice.INVALID_MODEL);
        }
        if (unusable.isPresent()) {
            // The same rule as the API's: a model this replica cannot call is refused, saying what would fix it.
            return page(422, session, Layout.of("Operator", "operator", session)
                    .withProblem("Not saved: " + unusable.get().describe() + "."), null, null,
                    FleetOverview.OrgOrder.SPEND);
        }
        BigDecimal budget;
        try {
            budget = MonthlyBudget.parse(budgetParam);
        } catch (IllegalArgumentException e) {
            return back(Notice.INVALID_BUDGET);
        }
        // The same change as PUT /v1/orgs/{org_id}/synthesis: a budget raised here lets the org's waiting
        // conflicts go at once. The page does not show the weight, so it keeps the one the org has.
        settings.change(session.caller(), org, model, budget, null, null);
        return back(Notice.SETTINGS_SAVED);
    }

    @POST
    @Path("view")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Response view(@CookieParam(SessionCookies.SESSION) String cookie, @FormParam("form_key") String formKey,
                         @FormParam("org") String orgParam, @FormParam("conflict") String conflictParam,
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
        UUID org = CanonicalIds.uuid(orgParam == null ? null : orgParam.strip().toLowerCase(Locale.ROOT));
        if (org == null) {
            return back(Notice.INVALID_ORG);
        }
        pages.sessions().view(session, org);
        // From the failed list: straight to that conflict's page, in the org now viewed (only an id is taken, so
        // this can send nobody elsewhere).
        UUID conflict = CanonicalIds.uuid(conflictParam);
        return Pages.seeOther(conflict == null ? "/" : "/conflicts/" + conflict);
    }

    private Response operatorsOnly(WebSession session) {
        return pages.message(403, session, "Operators only",
                "The operator pages are for platform tokens. Your inbox is on the Inbox page.");
    }

    private static Response back(Notice notice) {
        return Pages.seeOther("/operator?notice=" + notice.code());
    }
}
