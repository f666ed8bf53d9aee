package io.mergesynthesis.service.resources;

import io.dropwizard.auth.Auth;
import io.mergesynthesis.service.api.ErrorBody;
import io.mergesynthesis.service.auth.Caller;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.core.EventPosition;
import io.mergesynthesis.service.export.CursorPastRetention;
import io.mergesynthesis.service.export.EventCursor;
import io.mergesynthesis.service.export.EventExport;
import io.mergesynthesis.service.export.EventFormat;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import java.util.UUID;

/** The SIEM event stream: a siem token reads its own org, a platform token every org or the one it names. */
@Path("/v1/events")
public class EventResource {

    /** The response header that carries where the next request should start. */
    public static final String NEXT_CURSOR = "Next-Cursor";

    private final EventExport export;

    public EventResource(EventExport export) {
        this.export = export;
    }

    @GET
    @RolesAllowed({Role.SIEM_NAME, Role.PLATFORM_NAME})
    public Response stream(@Auth Caller caller,
                           @QueryParam("after") String afterParam,
                           @QueryParam("limit") String limitParam,
                           @QueryParam("format") String formatParam,
                           @QueryParam("org_id") String orgParam) {
        EventFormat format = EventFormat.NDJSON;
        if (formatParam != null) {
            format = EventFormat.fromWireName(formatParam).orElse(null);
            if (format == null) {
                return badRequest("format must be ndjson or cef (got \"" + formatParam + "\")");
            }
        }
        int limit = EventExport.DEFAULT_LIMIT;
        if (limitParam != null) {
            try {
                limit = Integer.parseInt(limitParam);
            } catch (NumberFormatException e) {
                limit = -1;
            }
            if (limit < 1 || limit > EventExport.MAX_LIMIT) {
                return badRequest("limit must be a whole number from 1 to " + EventExport.MAX_LIMIT
                        + " (got \"" + limitParam + "\")");
            }
        }
        EventPosition after;
        try {
            after = EventCursor.decode(afterParam);
        } catch (IllegalArgumentException e) {
            return badRequest(e.getMessage());
        }
        UUID org = caller.orgId();
        if (orgParam != null) {
            UUID named;
            try {
                named = Ids.parseUuid(orgParam);
            } catch (IllegalArgumentException e) {
                return badRequest("org_id must be a UUID");
            }
            if (caller.role().boundToOrg() && !named.equals(caller.orgId())) {
                return ErrorBody.response(Response.Status.FORBIDDEN,
                        "a siem token reads only its own org's events; drop org_id or name the token's org");
            }
            org = named;
        }

        EventExport.Page page;
        try {
            page = export.plan(org, after, limit);
        } catch (CursorPastRetention e) {
            // Gone for good: the same cursor will never read on, unlike a page not ready yet.
            return ErrorBody.response(Response.Status.GONE, e.getMessage());
        }
        EventFormat chosen = format;
        StreamingOutput body = out -> export.write(page, chosen, out);
        return Response.ok(body, chosen.mediaType())
                .header(NEXT_CURSOR, page.nextCursor())
                .header(HttpHeaders.CACHE_CONTROL, "no-store")
                .build();
    }

    private static Response badRequest(String message) {
        return ErrorBody.response(Response.Status.BAD_REQUEST, message);
    }
}
