package io.mergesynthesis.service.web;

import io.mergesynthesis.service.inbox.BulkActions;
import io.mergesynthesis.service.inbox.BulkActions.Operation;
import io.mergesynthesis.service.inbox.ResolutionNote;
import io.mergesynthesis.service.session.WebSession;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.CookieParam;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The inbox's bulk form: one action on the conflicts ticked, or on every conflict the current filter matches,
 * answered with a summary of what changed and what was refused and why. Guarded like every form of the pages
 * (the session's form key, same-site only), and only for a person who may change the org's conflicts.
 */
@Path("/bulk")
@Produces(MediaType.TEXT_HTML)
public final class BulkActionsResource {

    private final Pages pages;
    private final BulkActions bulk;

    BulkActionsResource(Pages pages, BulkActions bulk) {
        this.pages = pages;
        this.bulk = bulk;
    }

    @POST
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Response act(@CookieParam(SessionCookies.SESSION) String cookie, @FormParam("form_key") String formKey,
                        @FormParam("operation") String operationParam, @FormParam("scope") String scope,
                        @FormParam("id") List<String> idParams, @FormParam("note") String noteParam,
                        @FormParam("inbox_status") String inboxStatus, @FormParam("synthesis_state") String state,
                        @FormParam("action") String action, @FormParam("q") String search,
                        @Context HttpHeaders headers) {
        Optional<WebSession> found = pages.session(cookie);
        if (found.isEmpty()) {
            return Pages.toSignIn();
        }
        WebSession session = found.get();
        if (!FormGuard.accepts(headers, session.formKey(), formKey)) {
            return pages.forbiddenForm(session);
        }
        if (session.org() == null || !session.mayChangeConflicts()) {
            return pages.message(403, session, "Not allowed", "Only this org's admins (the org_admin role) act on "
                    + "its conflicts; you are signed in as " + session.role().wireName() + ".");
        }
        InboxQuery query = InboxQuery.of(inboxStatus, state, action, search, null, null, null);
        Layout layout = Layout.of("Bulk action", "inbox", session);
        Optional<Operation> operation = Operation.fromWireName(operationParam);
        if (operation.isEmpty()) {
            return problem(layout, query, "Nothing was done: choose an action.");
        }
        // Browsers send line breaks in a textarea as CRLF; keep the note as the person typed it.
        String note = noteParam == null || noteParam.isBlank() ? null : noteParam.replace("\r\n", "\n");
        if (note != null && ResolutionNote.problem(note) != null) {
            return problem(layout, query, "Nothing was done: the note " + ResolutionNote.problem(note) + ".");
        }
        BulkActions.Summary summary;
        if ("matching".equals(scope)) {
            summary = bulk.onMatching(session.caller(), operation.get(), query.filter(), note);
        } else {
            List<UUID> ids = new ArrayList<>();
            for (String idParam : idParams == null ? List.<String>of() : idParams) {
                UUID id = CanonicalIds.uuid(idParam);
                if (id == null) {
                    return problem(layout, query, "Nothing was done: a selected conflict's id is not one this "
                            + "inbox wrote.");
                }
                ids.add(id);
            }
            if (ids.isEmpty()) {
                return problem(layout, query, "Nothing was done: no conflict was selected. Tick the ones to act on, "
                        + "or choose every conflict matching the filter.");
            }
            summary = bulk.onConflicts(session.caller(), operation.get(), ids, note);
        }
        return pages.render(200, "bulk-summary", layout, BulkSummaryPage.of(summary, query));
    }

    private Response problem(Layout layout, InboxQuery query, String text) {
        return pages.render(422, "bulk-summary", layout.withProblem(text), BulkSummaryPage.nothing(query));
    }
}
