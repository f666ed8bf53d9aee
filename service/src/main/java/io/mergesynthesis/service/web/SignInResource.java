package io.mergesynthesis.service.web;

import io.mergesynthesis.service.auth.Caller;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.auth.TokenStore;
import io.mergesynthesis.service.session.WebSession;
import io.mergesynthesis.service.session.WebSessions;
import io.mergesynthesis.service.signin.ClaimsMapping;
import io.mergesynthesis.service.signin.IdentityProvider;
import io.mergesynthesis.service.signin.ProviderSignIn;
import io.mergesynthesis.service.signin.SignInWithProvider;
import jakarta.servlet.http.HttpServletRequest;
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
import jakarta.ws.rs.core.UriInfo;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Signing in and out. With an identity provider configured, people sign in there (see {@link IdentityProvider})
 * and come back to {@code /auth/callback}; pasting a token into a form stays for machines and quick looks unless
 * {@code web.tokenSignIn} is false. A token travels once, in a POST body; the provider's code and tokens arrive
 * from the provider. None of them is ever put in a log line; what the browser keeps is a session cookie (see
 * {@link WebSessions}).
 */
@Path("/")
@Produces(MediaType.TEXT_HTML)
public final class SignInResource {

    private static final Logger LOG = LoggerFactory.getLogger(SignInResource.class);

    private final Pages pages;
    private final TokenStore tokens;
    private final Optional<SignInWithProvider> provider;
    private final boolean tokenSignIn;
    private final URI publicBase;

    SignInResource(Pages pages, TokenStore tokens, Optional<SignInWithProvider> provider, boolean tokenSignIn,
                   URI publicBase) {
        this.pages = pages;
        this.tokens = tokens;
        this.provider = provider;
        this.tokenSignIn = tokenSignIn;
        this.publicBase = publicBase;
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
        if (!tokenSignIn) {
            return signInForm(403, "Signing in with a token is turned off here: sign in with your company account.",
                    request);
        }
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
        if (!role.readsInbox() && role != Role.PLATFORM) {
            return signInForm(403, "That is a token of the " + role.wireName() + " role, which cannot use the inbox. "
                    + "Sign in with an org_admin, org_viewer or platform token.", request);
        }
        // Signing in again (another token, another role) ends the session this browser had.
        pages.session(previous).ifPresent(pages.sessions()::end);
        Optional<WebSessions.Opened> session = pages.sessions().open(caller.get(), presented);
        if (session.isEmpty()) {
            return signInForm(401, "That token is not valid: it is unknown, revoked or expired.", request);
        }
        return signedIn(session.get(), uri, request, SessionCookies.SIGN_IN);
    }

    /** Sends the person to the identity provider, with this browser's state, nonce and PKCE verifier kept here. */
    @GET
    @Path("auth/sign-in")
    public Response toProvider(@Context HttpServletRequest request) {
        if (provider.isEmpty()) {
            return pages.message(404, null, "Not found", "Sign-in with an identity provider is not set up here.");
        }
        ProviderSignIn signIn = ProviderSignIn.fresh();
        URI there;
        try {
            there = provider.get().provider().authorizationRequest(signIn);
        } catch (IdentityProvider.ProviderUnavailable e) {
            LOG.warn("sign-in could not start: {}", e.getMessage());
            return refusal(502, "Sign-in is unavailable", "Your company's sign-in could not be reached just now. "
                    + "Please try again in a moment.", request);
        }
        return Response.seeOther(there)
                .header(HttpHeaders.SET_COOKIE, SessionCookies.providerSignIn(signIn.cookieValue(), request.isSecure()))
                .build();
    }

    /**
     * Where the provider sends the person back. The {@code state} must match this browser's, the code is exchanged
     * (with the PKCE verifier and the client secret), and the ID token must pass every check and name a role of
     * ours; anything else answers a page saying what failed, and signs no one in.
     */
    @GET
    @Path("auth/callback")
    public Response callback(@QueryParam("code") String code, @QueryParam("state") String state,
                             @QueryParam("error") String error,
                             @CookieParam(SessionCookies.PROVIDER_SIGN_IN) String started,
                             @CookieParam(SessionCookies.SESSION) String previous,
                             @Context UriInfo uri, @Context HttpServletRequest request) {
        if (provider.isEmpty()) {
            return pages.message(404, null, "Not found", "Sign-in with an identity provider is not set up here.");
        }
        Optional<ProviderSignIn> signIn = ProviderSignIn.ofCookie(started);
        if (signIn.isEmpty() || state == null || !sameText(signIn.get().state(), state)) {
            return refusal(400, "Sign-in not accepted", "This sign-in did not start in this browser, or took longer "
                    + "than " + SessionCookies.PROVIDER_SIGN_IN_TIME.toMinutes() + " minutes (its state does not "
                    + "match). Please sign in again.", request);
        }
        if (error != null) {
            return refusal(401, "Not signed in", "Your company's sign-in did not sign you in ("
                    + (error.matches("[a-z_]{1,40}") ? error : "an error") + "). Please sign in again.", request);
        }
        if (code == null || code.isBlank()) {
            return refusal(400, "Sign-in not accepted", "The answer from your company's sign-in holds no code. "
                    + "Please sign in again.", request);
        }
        IdentityProvider.VerifiedSignIn verified;
        try {
            verified = provider.get().provider().finish(code, signIn.get());
        } catch (IdentityProvider.SignInRefused e) {
            LOG.warn("sign-in refused: {}", e.getMessage());
            return refusal(401, "Not signed in", "Your sign-in was not accepted: " + e.getMessage() + ".", request);
        } catch (IdentityProvider.ProviderUnavailable e) {
            LOG.warn("sign-in could not finish: {}", e.getMessage());
            return refusal(502, "Sign-in is unavailable", "Your company's sign-in could not be reached just now. "
                    + "Please try again in a moment.", request);
        }
        ClaimsMapping.Outcome outcome = provider.get().claims().map(verified.claims());
        if (outcome instanceof ClaimsMapping.Refused refused) {
            return refusal(403, "Missing claim: " + refused.claim(), refused.reason(), request);
        }
        WebSessions.Person person = ((ClaimsMapping.Admitted) outcome).person();
        pages.session(previous).ifPresent(pages.sessions()::end);
        WebSessions.Opened opened = pages.sessions().open(person, verified.idToken());
        return signedIn(opened, uri, request, SessionCookies.PROVIDER_SIGN_IN);
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
        Optional<String> idToken = pages.sessions().end(session.get());
        // A person's session ends at the provider too, where it offers that; it then sends the browser back here.
        URI next = idToken.flatMap(token -> provider.flatMap(p -> p.provider().signOut(token,
                        URI.create(publicBase.toString().replaceAll("/$", "") + "/sign-in"))))
                .orElse(uri.getBaseUriBuilder().path("/sign-in").build());
        return Response.seeOther(next)
                .header(HttpHeaders.SET_COOKIE, SessionCookies.expired(SessionCookies.SESSION, request.isSecure()))
                .build();
    }

    private Response signedIn(WebSessions.Opened opened, UriInfo uri, HttpServletRequest request, String spentCookie) {
        boolean secure = request.isSecure();
        return Response.seeOther(uri.getBaseUriBuilder().path(home(opened.session())).build())
                .header(HttpHeaders.SET_COOKIE, SessionCookies.session(opened.secret(), pages.sessions().max(), secure))
                .header(HttpHeaders.SET_COOKIE, SessionCookies.expired(spentCookie, secure))
                .build();
    }

    /** A page saying why no one was signed in; the provider's sign-in cookie is spent either way. */
    private Response refusal(int status, String title, String text, HttpServletRequest request) {
        return Response.fromResponse(pages.message(status, null, title, text))
                .header(HttpHeaders.SET_COOKIE, SessionCookies.expired(SessionCookies.PROVIDER_SIGN_IN,
                        request.isSecure()))
                .build();
    }

    private Response signInForm(int status, String problem, HttpServletRequest request) {
        String value = WebSessions.randomSecret();
        Response page = pages.render(status, "sign-in", Layout.of("Sign in", null, null),
                new SignInPage(value, problem, provider.isPresent(), tokenSignIn));
        return Response.fromResponse(page)
                .header(HttpHeaders.SET_COOKIE, SessionCookies.signIn(value, request.isSecure()))
                .build();
    }

    private static boolean sameText(String expected, String sent) {
        return MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8), sent.getBytes(StandardCharsets.UTF_8));
    }

    static String home(WebSession session) {
        return session.platform() ? "/operator" : "/";
    }

    record SignInPage(String signInValue, String problem, boolean provider, boolean tokenSignIn) {
    }
}
