package io.mergesynthesis.service.web;

import io.mergesynthesis.service.session.WebSession;
import io.mergesynthesis.service.usage.MonthlyUsage;
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
public final class UsagePageResource {

    private final Pages pages;
    private final MonthlyUsage usage;

    UsagePageResource(Pages pages, MonthlyUsage usage) {
        this.pages = pages;
        this.usage = usage;
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
        return pages.render(200, "usage", Layout.of("Usage", "usage", session), UsagePage.of(usage.ofOrg(org)));
    }
}
