package io.mergesynthesis.service.web;

import io.mergesynthesis.service.core.MarkedConflict;
import io.mergesynthesis.service.operator.FailedList;
import io.mergesynthesis.service.operator.OrgDirectory;
import io.mergesynthesis.service.requeue.ConflictRequeue;
import io.mergesynthesis.service.requeue.Requester;
import io.mergesynthesis.service.requeue.RequeueFilter;
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
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * The conflicts the worker pool gave up on, across orgs, newest first, with Try again for one of them or for
 * every one that failed with a reason (the same re-queue as {@code POST /v1/conflicts/retry}).
 */
@Path("/operator/failed")
@Produces(MediaType.TEXT_HTML)
public final class FailedPageResource {

    static final int PAGE_SIZE = 50;

    private final Pages pages;
    private final FailedList failed;
    private final OrgDirectory orgs;
    private final ConflictRequeue requeue;

    FailedPageResource(Pages pages, FailedList failed, OrgDirectory orgs, ConflictRequeue requeue) {
        this.pages = pages;
        this.failed = failed;
        this.orgs = orgs;
        this.requeue = requeue;
    }

    @GET
    public Response list(@CookieParam(SessionCookies.SESSION) String cookie, @QueryParam("reason") String reasonParam,
                         @QueryParam("org") String orgParam, @QueryParam("after") String afterParam,
                         @QueryParam("notice") String notice) {
        PlatformAccess access = PlatformAccess.toPage(pages, cookie);
        if (access.refused()) {
            return access.turnedBack();
        }
        // A filter that is not one of ours is no filter, rather than an error page.
        String reason = RequeueFilter.FAILURE_REASONS.contains(reasonParam) ? reasonParam : null;
        UUID org = CanonicalIds.typed(orgParam);
        MarkedConflict.Key after = key(afterParam);
        FailedList.Page page = failed.page(reason, org, after, PAGE_SIZE);
        Map<UUID, String> names = orgs.namesOf(page.conflicts().stream().map(MarkedConflict::org)
                .collect(Collectors.toSet()));
        Instant now = pages.clock().instant();
        String filter = (reason == null ? "" : "&reason=" + reason) + (org == null ? "" : "&org=" + org);
        FailedPage view = new FailedPage(reason, org == null ? null : OrgLabel.of(org, orgs.nameOf(org).orElse(null)),
                RequeueFilter.FAILURE_REASONS, page.conflicts().stream().map(c -> new FailedPage.Row(c.id().toString(),
                        OrgLabel.of(c.org(), names), c.target(), c.reason(), c.attempts(),
                        Moment.of(c.markedAt(), now))).toList(),
                page.more() ? cursor(page.conflicts().get(page.conflicts().size() - 1).key()) : null,
                after != null, filter, back(reason, org));
        return pages.render(200, "failed", OperatorNotice.layout("Failed conflicts", notice, access), view);
    }

    @POST
    @Path("retry")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Response retryOne(@CookieParam(SessionCookies.SESSION) String cookie, @FormParam("form_key") String formKey,
                             @FormParam("conflict") String conflictParam, @FormParam("back") String back,
                             @Context HttpHeaders headers) {
        PlatformAccess access = PlatformAccess.toForm(pages, cookie, headers, formKey);
        if (access.refused()) {
            return access.turnedBack();
        }
        UUID conflict = CanonicalIds.typed(conflictParam);
        ConflictRequeue.Kind kind = conflict == null ? ConflictRequeue.Kind.NOT_FOUND
                : requeue.one(Requester.of(access.session().caller()), null, conflict).kind();
        return returnTo(back, kind == ConflictRequeue.Kind.REQUEUED ? OperatorNotice.REQUEUED
                : OperatorNotice.NOT_MARKED);
    }

    @POST
    @Path("retry-reason")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Response retryReason(@CookieParam(SessionCookies.SESSION) String cookie,
                                @FormParam("form_key") String formKey, @FormParam("reason") String reason,
                                @Context HttpHeaders headers) {
        PlatformAccess access = PlatformAccess.toForm(pages, cookie, headers, formKey);
        if (access.refused()) {
            return access.turnedBack();
        }
        if (!RequeueFilter.FAILURE_REASONS.contains(reason)) {
            return returnTo(null, OperatorNotice.INVALID_REASON);
        }
        requeue.matching(Requester.of(access.session().caller()), new RequeueFilter(null, reason));
        return returnTo(null, OperatorNotice.REQUEUED_REASON);
    }

    /** Back to the list as it was filtered; only a filter this page wrote itself is kept. */
    private static Response returnTo(String back, OperatorNotice notice) {
        String query = back != null && back.matches("(reason=[a-z_]{1,40})?(&?org=[0-9a-f-]{36})?") ? back : "";
        return Pages.seeOther("/operator/failed?" + (query.isEmpty() ? "" : query + "&") + "notice=" + notice.code());
    }

    /** The filter as a query: both parts are our own words (a known reason, a canonical id), nothing to escape. */
    private static String back(String reason, UUID org) {
        return (reason == null ? "" : "reason=" + reason) + (org == null ? "" : (reason == null ? "" : "&")
                + "org=" + org);
    }

    static String cursor(MarkedConflict.Key key) {
        return key.markedAt() + "_" + key.id();
    }

    /** The key a cursor names; anything malformed reads as the first page. */
    static MarkedConflict.Key key(String cursor) {
        if (cursor == null) {
            return null;
        }
        int cut = cursor.indexOf('_');
        if (cut < 0) {
            return null;
        }
        UUID id = CanonicalIds.uuid(cursor.substring(cut + 1));
        try {
            return id == null ? null : new MarkedConflict.Key(Instant.parse(cursor.substring(0, cut)), id);
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
