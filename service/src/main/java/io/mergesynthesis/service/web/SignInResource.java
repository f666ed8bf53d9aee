package io.mergesynthesis.service.web;

import io.mergesynthesis.service.auth.Caller;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.auth.TokenStore;
import io.mergesynthesis.service.session.WebSession;
import io.mergesynthesis.service.session.WebSessions;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.CookieParam;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.util.Optional;

/**
 * Signing in by pasting a token into a form, and signing out. The token travels once, in a POST body; it is
 * never put in a URL, a cookie or a log line. What the browser keeps is a session cookie (see {@link WebSessions}).
 */
@Path("/")
@Produces(MediaType.TEXT_HTML)
public final class SignInResource {

    private final Pages pages;
    private final TokenStore tokens;

    SignInResource(Pages pages, TokenStore tokens) {
        this.pages = pages;
        this.tokens = tokens;
    }

    @GET
    @Path("sign-in")
    public Response form(@CookieParam(SessionCookies.SESSION) String cookie, @Context HttpServletRequest request) {
        Optional<WebSession> session = pages.session(cookie);
        if (session.isPresent()) {
            return Pages.seeOther(home(session.get()));
        }
        return signInForm(200, null, request);
    }

    @POST
    @Path("sign-in")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Response signIn(@FormParam("token") String token, @FormParam("sign_in") String formValue,
                           @CookieParam(SessionCookies.SIGN_IN) String cookieValue,
                           @CookieParam(SessionCookies.SESSION) String previous,
                           @Context HttpHeaders headers, @Context UriInfo uri,
                           @Context HttpServletRequest request) {
        if (!FormGuard.accepts(headers, cookieValue, formValue)) {
            return signInForm(403, "This sign-in form was not accepted (it came from another page, or cookies are "
                    + "off). Please paste the token again.", request);
        }
        String presented = token == null ? null : token.strip();
        Optional<Caller> caller = tokens.find(presented);
        if (caller.isEmpty()) {
            return signInForm(401, "That token is not valid: it is unknown, revoked or expired.", request);
        }
        Role role = caller.get().role();
        if (role != Role.ORG_ADMIN && role != Role.PLATFORM) {
            return signInForm(403, "That is a token of the " + role.wireName() + " role, which cannot use the inbox. "
                    + "Sign in with an org_admin or a platform token.", request);
        }
        // Signing in again (another token, another role) ends the session this browser had.
        pages.session(previous).ifPresent(pages.sessions()::end);
        Optional<WebSessions.Opened> session = pages.sessions().open(caller.get(), presented);
        if (session.isEmpty()) {
            return signInForm(401, "That token is not valid: it is unknown, revoked or expired.", request);
        }
        WebSessions.Opened opened = session.get();
        boolean secure = request.isSecure();
        return Response.seeOther(uri.getBaseUriBuilder().path(home(opened.session())).build())
                .header(HttpHeaders.SET_COOKIE, SessionCookies.session(opened.secret(), secure))
                .header(HttpHeaders.SET_COOKIE, SessionCookies.expired(SessionCookies.SIGN_IN, secure))
                .build();
    }

    @POST
    @Path("sign-out")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Response signOut(@CookieParam(SessionCookies.SESSION) String cookie, @FormParam("form_key") String formKey,
                            @Context HttpHeaders headers, @Context UriInfo uri,
                            @Context HttpServletRequest request) {
        Optional<WebSession> session = pages.session(cookie);
        if (session.isEmpty()) {
            return Pages.toSignIn();
        }
        if (!FormGuard.accepts(headers, session.get().formKey(), formKey)) {
            return pages.forbiddenForm(session.get());
        }
        pages.sessions().end(session.get());
        return Response.seeOther(uri.getBaseUriBuilder().path("/sign-in").build())
                .header(HttpHeaders.SET_COOKIE, SessionCookies.expired(SessionCookies.SESSION, request.isSecure()))
                .build();
    }

    private Response signInForm(int status, String problem, HttpServletRequest request) {
        String value = WebSessions.randomSecret();
        Response page = pages.render(status, "sign-in", Layout.of("Sign in", null, null), new SignInPage(value, problem));
        return Response.fromResponse(page)
                .header(HttpHeaders.SET_COOKIE, SessionCookies.signIn(value, request.isSecure()))
                .build();
    }

    static String home(WebSession session) {
        return session.platform() ? "/operator" : "/";
    }

    record SignInPage(String signInValue, String problem) {
    }
}
