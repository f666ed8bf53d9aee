package io.mergesynthesis.service.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.mergesynthesis.service.core.InboxStatus;
import io.mergesynthesis.service.core.Resolution;
import io.mergesynthesis.service.inbox.BulkActions;
import io.mergesynthesis.service.inbox.ConflictInbox;
import io.mergesynthesis.service.inbox.InboxReads;
import io.mergesynthesis.service.inbox.ResolutionNote;
import io.mergesynthesis.service.requeue.ConflictRequeue;
import io.mergesynthesis.service.requeue.Requester;
import io.mergesynthesis.service.session.WebSession;
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
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * The inbox and one conflict's page, with acknowledge, resolve and, for a marked conflict, try again. Every read and write runs in a transaction
 * scoped to the session's org (never to an org named in the URL), through the same classes as the JSON API.
 */
@Path("/")
@Produces(MediaType.TEXT_HTML)
public final class InboxResource {

    static final int PAGE_SIZE = 25;

    private final Pages pages;
    private final InboxReads reads;
    private final ConflictInbox inbox;
    private final ConflictRequeue requeue;
    private final ObjectMapper json;
    private final double escalateBelow;

    InboxResource(Pages pages, InboxReads reads, ConflictInbox inbox, ConflictRequeue requeue, ObjectMapper json,
                  double escalateBelow) {
        this.escalateBelow = escalateBelow;
        this.pages = pages;
        this.reads = reads;
        this.inbox = inbox;
        this.requeue = requeue;
        this.json = json;
    }

    @GET
    public Response inbox(@CookieParam(SessionCookies.SESSION) String cookie,
                          @QueryParam("inbox_status") String inboxStatusParam,
                          @QueryParam("synthesis_state") String stateParam,
                          @QueryParam("action") String actionParam,
                          @QueryParam("q") String searchParam,
                          @QueryParam("sort") String sortParam,
                          @QueryParam("after") String afterParam,
                          @QueryParam("before") String beforeParam) {
        Optional<WebSession> found = pages.session(cookie);
        if (found.isEmpty()) {
            return Pages.toSignIn();
        }
        WebSession session = found.get();
        UUID org = session.org();
        if (org == null) {
            return Pages.seeOther("/operator");
        }
        // Unknown filter values and damaged cursors fall back to the unfiltered newest page.
        InboxQuery query = InboxQuery.of(inboxStatusParam, stateParam, actionParam, searchParam, sortParam, afterParam,
                beforeParam);
        InboxReads.PageWithCounts read = reads.pageWithCounts(org, query.filter(), query.position(),
                query.direction(), query.order(), PAGE_SIZE);
        InboxPage page = InboxPage.of(read.page(), read.counts(), read.deciders(), query,
                session.mayChangeConflicts(), session.mayRequeue(), BulkActions.MAX_CONFLICTS, json,
                pages.clock().instant());
        return pages.render(200, "inbox", Layout.of("Inbox", "inbox", session), page);
    }

    @GET
    @Path("conflicts/{id}")
    public Response conflict(@CookieParam(SessionCookies.SESSION) String cookie, @PathParam("id") String idParam,
                             @QueryParam("notice") String notice) {
        Optional<WebSession> found = pages.session(cookie);
        if (found.isEmpty()) {
            return Pages.toSignIn();
        }
        WebSession session = found.get();
        UUID org = session.org();
        UUID id = CanonicalIds.uuid(idParam);
        if (org == null || id == null) {
            return pages.notFound(session);
        }
        Instant now = pages.clock().instant();
        Optional<ConflictDetail> detail = reads.conflict(org, id).map(c -> ConflictDetail.of(c.conflict(), c.calls(),
                c.history(), c.deciders(), c.aheadInOrg(), c.batch(), session.mayChangeConflicts(),
                session.mayRequeue(), json,
                now, escalateBelow));
        if (detail.isEmpty()) {
            return pages.notFound(session);
        }
        // The outcome of a form is shown where the person acted: beside the suggested merge for try again,
        // beside the decision for acknowledge and resolve.
        Notice outcome = Notice.fromCode(notice).orElse(null);
        Notice aboutSynthesis = outcome == Notice.REQUEUED || outcome == Notice.NOT_MARKED ? outcome : null;
        Notice aboutDecision = aboutSynthesis == null ? outcome : null;
        return pages.render(200, "conflict", Layout.of("Conflict " + detail.get().target(), "inbox", session),
                detail.get(), new DecisionNotice(aboutDecision == null ? null : aboutDecision.text(),
                        aboutDecision != null && aboutDecision.problem()),
                new SynthesisNotice(aboutSynthesis == null ? null : aboutSynthesis.text(),
                        aboutSynthesis != null && aboutSynthesis.problem()));
    }

    @POST
    @Path("conflicts/{id}/acknowledge")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Response acknowledge(@CookieParam(SessionCookies.SESSION) String cookie, @PathParam("id") String idParam,
                                @FormParam("form_key") String formKey, @Context HttpHeaders headers) {
        Optional<WebSession> found = pages.session(cookie);
        if (found.isEmpty()) {
            return Pages.toSignIn();
        }
        WebSession session = found.get();
        if (!FormGuard.accepts(headers, session.formKey(), formKey)) {
            return pages.forbiddenForm(session);
        }
        Response viewer = pages.refusedToViewer(session, "an org_admin");
        if (viewer != null) {
            return viewer;
        }
        UUID id = CanonicalIds.uuid(idParam);
        if (id == null || !session.mayChangeConflicts()) {
            return pages.notFound(session);
        }
        ConflictInbox.ActionResult outcome = inbox.acknowledge(session.caller(), id);
        return switch (outcome.kind()) {
            case CHANGED -> back(id, Notice.ACKNOWLEDGED);
            case UNCHANGED, REFUSED -> back(id, Notice.ALREADY_ACKNOWLEDGED);
            case NOT_FOUND -> pages.notFound(session);
        };
    }

    @POST
    @Path("conflicts/{id}/resolve")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Response resolve(@CookieParam(SessionCookies.SESSION) String cookie, @PathParam("id") String idParam,
                            @FormParam("form_key") String formKey, @FormParam("resolution") String resolutionParam,
                            @FormParam("note") String noteParam, @Context HttpHeaders headers) {
        Optional<WebSession> found = pages.session(cookie);
        if (found.isEmpty()) {
            return Pages.toSignIn();
        }
        WebSession session = found.get();
        if (!FormGuard.accepts(headers, session.formKey(), formKey)) {
            return pages.forbiddenForm(session);
        }
        Response viewer = pages.refusedToViewer(session, "an org_admin");
        if (viewer != null) {
            return viewer;
        }
        UUID id = CanonicalIds.uuid(idParam);
        if (id == null || !session.mayChangeConflicts()) {
            return pages.notFound(session);
        }
        Optional<Resolution> resolution = Resolution.fromWireName(resolutionParam);
        if (resolution.isEmpty()) {
            return back(id, Notice.INVALID_RESOLUTION);
        }
        // Browsers send line breaks in a textarea as CRLF; keep the note as the person typed it.
        String note = noteParam == null || noteParam.isBlank() ? null : noteParam.replace("\r\n", "\n");
        if (note != null && ResolutionNote.problem(note) != null) {
            return back(id, Notice.INVALID_NOTE);
        }
        ConflictInbox.ActionResult outcome = inbox.resolve(session.caller(), id, resolution.get(), note);
        return switch (outcome.kind()) {
            case CHANGED -> back(id, Notice.RESOLVED);
            case UNCHANGED -> back(id, Notice.ALREADY_RESOLVED_SAME);
            case NOT_FOUND -> pages.notFound(session);
            // The API's 409: either someone resolved it first, or there is no suggestion to accept yet.
            case REFUSED -> back(id, outcome.conflict().orElseThrow().inboxStatus() == InboxStatus.RESOLVED
                    ? Notice.LOST_RACE : Notice.NO_MERGE_YET);
        };
    }

    /**
     * Try again: puts a marked conflict of the session's org back to pending, as {@code POST
     * /v1/conflicts/{id}/retry} does.
     */
    @POST
    @Path("conflicts/{id}/retry")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Response retry(@CookieParam(SessionCookies.SESSION) String cookie, @PathParam("id") String idParam,
                          @FormParam("form_key") String formKey, @Context HttpHeaders headers) {
        Optional<WebSession> found = pages.session(cookie);
        if (found.isEmpty()) {
            return Pages.toSignIn();
        }
        WebSession session = found.get();
        if (!FormGuard.accepts(headers, session.formKey(), formKey)) {
            return pages.forbiddenForm(session);
        }
        Response viewer = pages.refusedToViewer(session, "an org_admin or the platform operator");
        if (viewer != null) {
            return viewer;
        }
        UUID id = CanonicalIds.uuid(idParam);
        if (id == null || session.org() == null || !session.mayRequeue()) {
            return pages.notFound(session);
        }
        ConflictRequeue.Single outcome = requeue.one(Requester.of(session.caller()), session.org(), id);
        return switch (outcome.kind()) {
            case REQUEUED -> Pages.seeOther("/conflicts/" + id + "?notice=" + Notice.REQUEUED.code()
                    + "#merge-heading");
            case NOT_MARKED -> Pages.seeOther("/conflicts/" + id + "?notice=" + Notice.NOT_MARKED.code()
                    + "#merge-heading");
            case NOT_FOUND -> pages.notFound(session);
        };
    }

    /** Post, redirect, get: a reload of the page that follows repeats nothing. */
    private static Response back(UUID id, Notice notice) {
        return Pages.seeOther("/conflicts/" + id + "?notice=" + notice.code() + "#decision");
    }

    record DecisionNotice(String decisionNotice, boolean decisionNoticeIsProblem) {
    }

    record SynthesisNotice(String synthesisNotice, boolean synthesisNoticeIsProblem) {
    }
}
