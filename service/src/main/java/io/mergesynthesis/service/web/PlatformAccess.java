package io.mergesynthesis.service.web;

import io.mergesynthesis.service.session.WebSession;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.util.Optional;

/**
 * The door of every operator page: a platform session passes; no session goes to sign-in, another role gets the
 * plain refusal, and a form without this session's key (or from another site) is not accepted.
 *
 * @param session   the platform session, when it passed
 * @param turnedBack the answer for anyone else
 */
record PlatformAccess(WebSession session, Response turnedBack) {

    static PlatformAccess toPage(Pages pages, String cookie) {
        Optional<WebSession> found = pages.session(cookie);
        if (found.isEmpty()) {
            return new PlatformAccess(null, Pages.toSignIn());
        }
        if (!found.get().platform()) {
            return new PlatformAccess(null, pages.message(403, found.get(), "Operators only",
                    "The operator pages are for platform tokens. Your inbox is on the Inbox page."));
        }
        return new PlatformAccess(found.get(), null);
    }

    static PlatformAccess toForm(Pages pages, String cookie, HttpHeaders headers, String formKey) {
        PlatformAccess page = toPage(pages, cookie);
        if (page.session() != null && !FormGuard.accepts(headers, page.session().formKey(), formKey)) {
            return new PlatformAccess(null, pages.forbiddenForm(page.session()));
        }
        return page;
    }

    boolean refused() {
        return session == null;
    }
}
