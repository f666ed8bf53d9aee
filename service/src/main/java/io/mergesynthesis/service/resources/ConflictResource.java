package io.mergesynthesis.service.resources;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.auth.Auth;
import io.mergesynthesis.service.api.ConflictPage;
import io.mergesynthesis.service.api.ConflictView;
import io.mergesynthesis.service.api.ErrorBody;
import io.mergesynthesis.service.api.ErrorBody.FieldProblem;
import io.mergesynthesis.service.api.InboxCountsView;
import io.mergesynthesis.service.api.IngestResult;
import io.mergesynthesis.service.api.RefusedAction;
import io.mergesynthesis.service.api.RequeueResult;
import io.mergesynthesis.service.auth.Caller;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.core.ConflictReport;
import io.mergesynthesis.service.core.InboxStatus;
import io.mergesynthesis.service.core.Resolution;
import io.mergesynthesis.service.core.StoredConflict;
import io.mergesynthesis.service.core.SynthesisState;
import io.mergesynthesis.service.inbox.ConflictInbox;
import io.mergesynthesis.service.inbox.InboxFilter;
import io.mergesynthesis.service.inbox.InboxReads;
import io.mergesynthesis.service.inbox.PageCursor;
import io.mergesynthesis.service.inbox.PageOfConflicts;
import io.mergesynthesis.service.inbox.ResolutionNote;
import io.mergesynthesis.service.ingest.ConflictIntake;
import io.mergesynthesis.service.ingest.ConflictIntake.Ingested;
import io.mergesynthesis.service.ingest.ReportParser;
import io.mergesynthesis.service.ingest.ReportParser.Parsed;
import io.mergesynthesis.service.requeue.ConflictRequeue;
import io.mergesynthesis.service.requeue.Requester;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Ingest from the policy engine, the admin inbox (reads, acknowledge and resolve), and re-queueing marked ones. */
@Path("/v1/conflicts")
@Produces(MediaType.APPLICATION_JSON)
public class ConflictResource {

    public static final int DEFAULT_PAGE_SIZE = 50;
    public static final int MAX_PAGE_SIZE = 200;

    private final ConflictIntake intake;
    private final ReportParser parser;
    private final InboxReads reads;
    private final ConflictInbox inbox;
    private final ConflictRequeue requeue;

    public ConflictResource(ConflictIntake intake, ReportParser parser, InboxReads reads, ConflictInbox inbox,
                            ConflictRequeue requeue) {
        this.intake = intake;
        this.parser = parser;
        this.reads = reads;
        this.inbox = inbox;
        this.requeue = requeue;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed({Role.INGEST_NAME, Role.PLATFORM_NAME})
    public Response ingest(@Auth Caller caller, JsonNode body) {
        Parsed parsed = parser.parse(body, caller.orgId());
        if (!parsed.valid()) {
            List<FieldProblem> problems = parsed.errors().stream()
                    .map(e -> new FieldProblem(e.field(), e.message())).toList();
            return ErrorBody.response(422, "invalid conflict report: nothing was stored", problems);
        }
        if (caller.role().boundToOrg()) {
            for (int i = 0; i < parsed.reports().size(); i++) {
                ConflictReport report = parsed.reports().get(i);
                if (!report.orgId().equals(caller.orgId())) {
                    String field = parsed.batch() ? "conflicts[" + i + "].org_id" : "org_id";
                    return ErrorBody.response(403, "this token may only report conflicts of its own org: nothing was stored",
                            List.of(new FieldProblem(field, "is not the token's org")));
                }
            }
        }
        List<Ingested> ingested = intake.store(parsed.reports());
        if (parsed.batch()) {
            return Response.ok(IngestResult.Batch.of(ingested)).build();
        }
        Ingested one = ingested.get(0);
        if (!one.created()) {
            return Response.ok(IngestResult.of(one)).build();
        }
        return Response.created(URI.create("/v1/conflicts/" + one.id())).entity(IngestResult.of(one)).build();
    }

    @GET
    @RolesAllowed({Role.ORG_ADMIN_NAME, Role.ORG_VIEWER_NAME})
    public Response list(@Auth Caller caller,
                         @QueryParam("limit") String limitParam,
                         @QueryParam("cursor") String cursorParam,
                         @QueryParam("inbox_status") String inboxStatus,
                         @QueryParam("synthesis_state") String synthesisState,
                         @QueryParam("action") String action,
                         @QueryParam("q") String prefixParam) {
        int limit = DEFAULT_PAGE_SIZE;
        if (limitParam != null) {
            try {
                limit = Integer.parseInt(limitParam);
            } catch (NumberFormatException e) {
                limit = -1;
            }
            if (limit < 1 || limit > MAX_PAGE_SIZE) {
                return ErrorBody.response(Response.Status.BAD_REQUEST,
                        "limit must be a whole number from 1 to " + MAX_PAGE_SIZE + " (got \"" + limitParam + "\")");
            }
        }
        InboxStatus status = inboxStatus == null ? null : InboxStatus.fromWireName(inboxStatus).orElse(null);
        if (inboxStatus != null && status == null) {
            return ErrorBody.response(Response.Status.BAD_REQUEST,
                    "inbox_status must be one of " + InboxStatus.wireNames() + " (got \"" + inboxStatus + "\")");
        }
        SynthesisState state = synthesisState == null ? null
                : SynthesisState.fromWireName(synthesisState).orElse(null);
        if (synthesisState != null && state == null) {
            return ErrorBody.response(Response.Status.BAD_REQUEST,
                    "synthesis_state must be one of " + SynthesisState.wireNames() + " (got \""
                            + synthesisState + "\")");
        }
        if (action != null && !InboxFilter.knownAction(action)) {
            return ErrorBody.response(Response.Status.BAD_REQUEST,
                    "action must be one of " + InboxFilter.actionNames() + " (got \"" + action + "\")");
        }
        String prefix = prefixParam == null || prefixParam.isEmpty() ? null : prefixParam;
        String prefixProblem = prefix == null ? null : InboxFilter.prefixProblem(prefix);
        if (prefixProblem != null) {
            return ErrorBody.response(Response.Status.BAD_REQUEST, "q " + prefixProblem);
        }
        PageCursor after = null;
        if (cursorParam != null) {
            try {
                after = PageCursor.decode(cursorParam);
            } catch (IllegalArgumentException e) {
                return ErrorBody.response(Response.Status.BAD_REQUEST, e.getMessage());
            }
        }
        PageOfConflicts page = reads.page(caller.orgId(), new InboxFilter(status, state, action, prefix), after,
                limit);
        return Response.ok(new ConflictPage(page.conflicts().stream().map(ConflictView::of).toList(),
                page.next() == null ? null : page.next().encode())).build();
    }

    @GET
    @Path("/counts")
    @RolesAllowed({Role.ORG_ADMIN_NAME, Role.ORG_VIEWER_NAME})
    public Response counts(@Auth Caller caller) {
        return Response.ok(InboxCountsView.of(reads.counts(caller.orgId()))).build();
    }

    @GET
    @Path("/{id}")
    @RolesAllowed({Role.ORG_ADMIN_NAME, Role.ORG_VIEWER_NAME})
    public Response get(@Auth Caller caller, @PathParam("id") String idParam) {
        UUID id = Ids.parse(idParam);
        return reads.conflict(caller.orgId(), id)
                .map(c -> Response.ok(ConflictView.of(c.conflict(), c.calls(), c.history(), c.deciders(),
                        c.aheadInOrg(), c.batch())).build())
                .orElseGet(Ids::notFound);
    }

    @POST
    @Path("/{id}/acknowledge")
    @RolesAllowed(Role.ORG_ADMIN_NAME)
    public Response acknowledge(@Auth Caller caller, @PathParam("id") String idParam) {
        UUID id = Ids.parse(idParam);
        return answer(inbox.acknowledge(caller, id));
    }

    @POST
    @Path("/{id}/resolve")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Role.ORG_ADMIN_NAME)
    public Response resolve(@Auth Caller caller, @PathParam("id") String idParam, JsonNode body) {
        UUID id = Ids.parse(idParam);
        if (body == null || body.isMissingNode() || body.isNull()) {
            return ErrorBody.response(Response.Status.BAD_REQUEST,
                    "a JSON body is required: {\"resolution\": \"" + Resolution.wireNames().replace(", ", "|")
                            + "\", \"note\": \"...\"}");
        }
        List<FieldProblem> problems = new ArrayList<>();
        Resolution resolution = null;
        String note = null;
        if (!body.isObject()) {
            problems.add(new FieldProblem("", "must be a JSON object"));
        } else {
            body.fieldNames().forEachRemaining(name -> {
                if (!name.equals("resolution") && !name.equals("note")) {
                    problems.add(new FieldProblem(name, "is not a field of a resolution"));
                }
            });
            JsonNode r = body.get("resolution");
            if (r == null || r.isNull()) {
                problems.add(new FieldProblem("resolution", "is required: one of " + Resolution.wireNames()));
            } else {
                resolution = r.isTextual() ? Resolution.fromWireName(r.textValue()).orElse(null) : null;
                if (resolution == null) {
                    problems.add(new FieldProblem("resolution", "must be one of " + Resolution.wireNames()));
                }
            }
            JsonNode n = body.get("note");
            if (n != null && !n.isNull()) {
                if (!n.isTextual()) {
                    problems.add(new FieldProblem("note", "must be a string"));
                } else {
                    String problem = ResolutionNote.problem(n.textValue());
                    if (problem != null) {
                        problems.add(new FieldProblem("note", problem));
                    } else {
                        note = n.textValue();
                    }
                }
            }
        }
        if (!problems.isEmpty()) {
            return ErrorBody.response(422, "invalid resolution: nothing was changed", problems);
        }
        return answer(inbox.resolve(caller, id, resolution, note));
    }

    /**
     * Puts a marked conflict back to pending. An org admin acts on its own org's conflicts only (another org's is
     * the same 404 as a missing one); the platform on any org's.
     */
    @POST
    @Path("/{id}/retry")
    @RolesAllowed({Role.ORG_ADMIN_NAME, Role.PLATFORM_NAME})
    public Response retry(@Auth Caller caller, @PathParam("id") String idParam) {
        UUID id = Ids.parse(idParam);
        ConflictRequeue.Single outcome = requeue.one(Requester.of(caller), caller.orgId(), id);
        return switch (outcome.kind()) {
            case REQUEUED -> Response.ok(RequeueResult.of(ConflictView.of(outcome.conflict().orElseThrow()))).build();
            case NOT_FOUND -> Ids.notFound();
            case NOT_MARKED -> {
                StoredConflict c = outcome.conflict().orElseThrow();
                yield RefusedAction.response("only a conflict in synthesis state "
                        + SynthesisState.MAX_ATTEMPTS_EXCEEDED.wireName() + " can be retried; this one is "
                        + c.synthesisState().wireName() + ": nothing changed", ConflictView.of(c));
            }
        };
    }

    /** Puts every marked conflict that the filter takes back to pending. Platform only. */
    @POST
    @Path("/retry")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Role.PLATFORM_NAME)
    public Response retryMatching(@Auth Caller caller, JsonNode body) {
        if (body == null || body.isMissingNode() || body.isNull()) {
            return ErrorBody.response(Response.Status.BAD_REQUEST,
                    "a JSON body is required: {\"org_id\": \"...\", \"failure_reason\": \"...\"}, at least one of them");
        }
        RequeueRequest request = RequeueRequest.parse(body);
        if (request.filter() == null) {
            return ErrorBody.response(422, "invalid re-queue filter: nothing was re-queued", request.problems());
        }
        return Response.ok(RequeueResult.count(requeue.matching(Requester.of(caller), request.filter()))).build();
    }

    private static Response answer(ConflictInbox.ActionResult outcome) {
        return switch (outcome.kind()) {
            case CHANGED, UNCHANGED -> Response.ok(ConflictView.of(outcome.conflict().orElseThrow())).build();
            case NOT_FOUND -> Ids.notFound();
            case REFUSED -> RefusedAction.response(outcome.message(), ConflictView.of(outcome.conflict().orElseThrow()));
        };
    }
}
