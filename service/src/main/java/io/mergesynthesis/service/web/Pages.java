package io.mergesynthesis.service.web;

import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.session.WebSession;
import io.mergesynthesis.service.session.WebSessions;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.time.Clock;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;

/** What every page resource needs: the signed-in session, rendering, redirects and the plain message pages. */
final class Pages {

    static final MediaType HTML = MediaType.valueOf("text/html; charset=utf-8");

    private final Templates templates;
    private final WebSessions sessions;
    private final Clock clock;
    private final Function<UUID, Optional<String>> orgNames;

    Pages(Templates templates, WebSessions sessions, Clock clock, Function<UUID, Optional<String>> orgNames) {
        this.templates = templates;
        this.sessions = sessions;
        this.clock = clock;
        this.orgNames = orgNames;
    }

    WebSessions sessions() {
        return sessions;
    }

    Clock clock() {
        return clock;
    }

    Optional<WebSession> session(String cookie) {
        return sessions.find(cookie);
    }

    Response render(int status, String template, Layout layout, Object... page) {
        // The header names the session's org by its name: a scope under the page's own values.
        Object[] scopes = new Object[page.length + 1];
        UUID org = layout.session() == null ? null : layout.session().org();
        scopes[0] = new HeaderOrg(org == null ? null : OrgLabel.of(org, orgNames.apply(org).orElse(null)));
        System.arraycopy(page, 0, scopes, 1, page.length);
        String html = templates.render(template, layout, scopes);
        return Response.status(status).type(HTML).entity(html).build();
    }

    /** A page with a heading and one plain sentence: not found, not allowed. */
    Response message(int status, WebSession session, String title, String text) {
        return render(status, "message", Layout.of(title, null, session), new Message(title, text));
    }

    /** Another org's conflict and a missing one answer exactly this, so a URL tells nothing about other orgs. */
    Response notFound(WebSession session) {
        return message(404, session, "Not found", "There is no such conflict in this org's inbox.");
    }

    /**
     * A viewer's attempt at a change: 403 naming the roles that may make it. Null for any other session, which the
     * caller then judges as before.
     */
    Response refusedToViewer(WebSession session, String allowed) {
        if (session.role() != Role.ORG_VIEWER) {
            return null;
        }
        return message(403, session, "Not allowed", "Only " + allowed + " may do this; you are signed in as "
                + Role.ORG_VIEWER.wireName() + ", which reads this org's conflicts and changes nothing.");
    }

    Response forbiddenForm(WebSession session) {
        return message(403, session, "Form not accepted", Notice.FORM_EXPIRED.text());
    }

    static Response seeOther(String location) {
        return Response.seeOther(URI.create(location)).build();
    }

    static Response toSignIn() {
        return seeOther("/sign-in");
    }

    record Message(String heading, String text) {
    }

    /** The org the header names, or null. */
    record HeaderOrg(OrgLabel headerOrg) {
    }
}
