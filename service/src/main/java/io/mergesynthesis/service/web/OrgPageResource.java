package io.mergesynthesis.service.web;

import io.mergesynthesis.service.operator.OrgDirectory;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.CookieParam;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.UUID;

/** One org's page for the operator: its id in full, its name and the form that gives it one. */
@Path("/operator/orgs/{org}")
@Produces(MediaType.TEXT_HTML)
public final class OrgPageResource {

    private final Pages pages;
    private final OrgDirectory orgs;

    OrgPageResource(Pages pages, OrgDirectory orgs) {
        this.pages = pages;
        this.orgs = orgs;
    }

    record OrgPage(String orgId, String orgName) {
    }

    @GET
    public Response show(@CookieParam(SessionCookies.SESSION) String cookie, @PathParam("org") String orgParam,
                         @QueryParam("notice") String notice) {
        PlatformAccess access = PlatformAccess.toPage(pages, cookie);
        if (access.refused()) {
            return access.turnedBack();
        }
        UUID org = CanonicalIds.typed(orgParam);
        if (org == null) {
            return pages.message(404, access.session(), "Not found", "That is not an org id (a UUID).");
        }
        return pages.render(200, "org", OperatorNotice.layout("Org", notice, access),
                new OrgPage(org.toString(), orgs.nameOf(org).orElse(null)));
    }

    @POST
    @Path("name")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Response name(@CookieParam(SessionCookies.SESSION) String cookie, @FormParam("form_key") String formKey,
                         @PathParam("org") String orgParam, @FormParam("name") String name,
                         @Context HttpHeaders headers) {
        PlatformAccess access = PlatformAccess.toForm(pages, cookie, headers, formKey);
        if (access.refused()) {
            return access.turnedBack();
        }
        UUID org = CanonicalIds.typed(orgParam);
        if (org == null) {
            return Pages.seeOther("/operator?notice=" + Notice.INVALID_ORG.code());
        }
        OperatorNotice outcome;
        try {
            orgs.name(access.session().caller(), org, name == null ? null : name.strip());
            outcome = OperatorNotice.NAMED;
        } catch (OrgDirectory.NameTaken e) {
            outcome = OperatorNotice.NAME_TAKEN;
        } catch (IllegalArgumentException e) {
            outcome = OperatorNotice.INVALID_NAME;
        }
        return Pages.seeOther("/operator/orgs/" + org + "?notice=" + outcome.code());
    }
}
