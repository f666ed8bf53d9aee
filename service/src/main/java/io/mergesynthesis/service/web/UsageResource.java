package io.mergesynthesis.service.web;

import io.mergesynthesis.service.db.ScopedTransactions;
import jakarta.ws.rs.CookieParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Optional;
import java.util.UUID;

/** Month-to-date provider calls, tokens and cost of the session's org, against its budget. */
@Path("/usage")
@Produces(MediaType.TEXT_HTML)
public final class UsageResource {

    private final Pages pages;
    private final ScopedTransactions transactions;

    UsageResource(Pages pages, ScopedTransactions transactions) {
        this.pages = pages;
        this.transactions = transactions;
    }

    @GET
    public Response usage(@CookieParam(SessionCookies.SESSION) String cookie) {
        Optional<WebSession> found = pages.session(cookie);
        if (found.isEmpty()) {
            return Pages.toSignIn();
        }
        WebSession session = found.get();
        UUID org = session.org();
        if (org == null) {
            return Pages.seeOther("/operator");
        }
        OrgUsage usage = transactions.inOrg(org, handle -> OrgUsage.monthToDate(handle, org));
        return pages.render(200, "usage", Layout.of("Usage", "usage", session), UsagePage.of(usage));
    }
}
