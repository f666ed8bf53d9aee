package io.mergesynthesis.service.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.service.core.InboxCounts;
import io.mergesynthesis.service.core.InboxStatus;
import io.mergesynthesis.service.core.StoredConflict;
import io.mergesynthesis.service.core.SynthesisState;
import io.mergesynthesis.service.inbox.InboxReads;
import io.mergesynthesis.service.session.WebSession;
import jakarta.ws.rs.CookieParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The JSON views that the pages' own script ({@code inbox-live.js}) polls to keep the inbox and a conflict's page
 * current: the same reads as the pages, with the same session cookie and the same org scope, answering only what
 * changes while a page is open (counts, states, statuses, new rows). Signed out is a 401 the script stops on.
 */
@Path("/live")
@Produces(MediaType.APPLICATION_JSON)
public final class InboxLiveResource {

    private final Pages pages;
    private final InboxReads reads;
    private final ObjectMapper json;

    InboxLiveResource(Pages pages, InboxReads reads, ObjectMapper json) {
        this.pages = pages;
        this.reads = reads;
        this.json = json;
    }

    /** The inbox page the query names, as its rows and the counts beside it. */
    @GET
    @Path("inbox")
    public Response inbox(@CookieParam(SessionCookies.SESSION) String cookie,
                          @QueryParam("inbox_status") String inboxStatus, @QueryParam("synthesis_state") String state,
                          @QueryParam("action") String action, @QueryParam("q") String search,
                          @QueryParam("sort") String sort, @QueryParam("after") String after,
                          @QueryParam("before") String before) {
        Optional<WebSession> session = pages.session(cookie);
        if (session.isEmpty()) {
            return signedOut();
        }
        UUID org = session.get().org();
        if (org == null) {
            return notFound();
        }
        InboxQuery query = InboxQuery.of(inboxStatus, state, action, search, sort, after, before);
        InboxReads.PageWithCounts read = reads.pageWithCounts(org, query.filter(), query.position(),
                query.direction(), query.order(), InboxResource.PAGE_SIZE);
        Instant now = pages.clock().instant();
        ObjectNode body = json.createObjectNode();
        body.put("as_of", now.toString());
        body.set("counts", counts(read.counts()));
        ArrayNode rows = body.putArray("conflicts");
        for (StoredConflict c : read.page().conflicts()) {
            InboxPage.Row row = InboxPage.Row.of(c, read.deciders().get(c.id()), json, now);
            rows.addObject().put("id", row.id()).put("link", row.link()).put("action", row.action())
                    .put("target", row.target()).put("winner", row.winner()).put("state", row.state())
                    .put("state_label", row.stateLabel()).put("inbox_status", row.inboxStatus())
                    .put("received_iso", row.received().iso()).put("received_exact", row.received().exact())
                    .put("received_relative", row.received().relative()).put("decided_by", row.decidedBy())
                    .put("decided_iso", row.decided() == null ? null : row.decided().iso())
                    .put("decided_exact", row.decided() == null ? null : row.decided().exact())
                    .put("decided_relative", row.decided() == null ? null : row.decided().relative());
        }
        return Response.ok(body.toString()).build();
    }

    /** One conflict's synthesis and inbox state, and whether a suggested merge is stored. */
    @GET
    @Path("conflicts/{id}")
    public Response conflict(@CookieParam(SessionCookies.SESSION) String cookie, @PathParam("id") String idParam) {
        Optional<WebSession> session = pages.session(cookie);
        if (session.isEmpty()) {
            return signedOut();
        }
        UUID org = session.get().org();
        UUID id = CanonicalIds.uuid(idParam);
        Optional<StoredConflict> found = org == null || id == null ? Optional.empty()
                : reads.conflict(org, id).map(c -> c.conflict());
        if (found.isEmpty()) {
            return notFound();
        }
        StoredConflict c = found.get();
        ObjectNode body = json.createObjectNode()
                .put("as_of", pages.clock().instant().toString())
                .put("state", c.synthesisState().wireName())
                .put("state_label", c.synthesisState().label())
                .put("attempts", c.attempts())
                .put("has_merge", c.suggestedMergeJson() != null)
                .put("inbox_status", c.inboxStatus().wireName());
        return Response.ok(body.toString()).build();
    }

    private ObjectNode counts(InboxCounts counts) {
        ObjectNode out = json.createObjectNode();
        for (Map.Entry<SynthesisState, Long> e : counts.bySynthesisState().entrySet()) {
            out.put("state:" + e.getKey().wireName(), e.getValue());
        }
        for (Map.Entry<InboxStatus, Long> e : counts.byInboxStatus().entrySet()) {
            out.put("inbox:" + e.getKey().wireName(), e.getValue());
        }
        out.put("total", counts.total());
        // The inbox's default list: what is still to decide.
        out.put("unresolved", counts.total() - counts.byInboxStatus().get(InboxStatus.RESOLVED));
        return out;
    }

    private Response signedOut() {
        return Response.status(401).entity(json.createObjectNode().put("message", "signed out").toString()).build();
    }

    private Response notFound() {
        return Response.status(404).entity(json.createObjectNode().put("message", "no such conflict").toString())
                .build();
    }
}
