package io.mergesynthesis.service.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.Marked;
import io.mergesynthesis.service.testing.Seed;
import io.mergesynthesis.service.testing.TestApp;
import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The web inbox's safety properties, checked on the wire: headers, cookies, forged forms, sessions. */
@ExtendWith(DropwizardExtensionsSupport.class)
class WebSafetyTest {

    static final TestApp APP = TestApp.apiOnly();
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();
    static final UUID ORG = UUID.randomUUID();
    static final Pattern SIGN_IN_VALUE = Pattern.compile("name=\"sign_in\" value=\"([^\"]+)\"");
    static final Pattern FORM_KEY = Pattern.compile("name=\"form_key\" value=\"([^\"]+)\"");

    static Jdbi superuser;
    static String admin;
    static UUID conflict;

    @BeforeAll
    static void seed() {
        superuser = APP.database().jdbi();
        admin = APP.token(Role.ORG_ADMIN, ORG);
        conflict = WebSeed.one(APP, APP.token(Role.INGEST, ORG), ORG, "k-1", "jira.create_issue");
    }

    @Test
    void everyPageAndStaticFileCarriesTheSafetyHeaders() {
        String session = signIn(admin);
        for (String path : List.of("/", "/conflicts/" + conflict, "/usage", "/conflicts/" + UUID.randomUUID())) {
            HttpResponse<String> page = get(path, session);
            assertThat(page.headers().firstValue("Content-Type")).hasValue("text/html;charset=utf-8");
            assertSafetyHeaders(page);
            assertThat(page.headers().firstValue("Cache-Control")).hasValue("no-store");
        }
        assertSafetyHeaders(get("/sign-in", null));
        for (String file : List.of("/static/app.css", "/static/app.js")) {
            HttpResponse<String> asset = get(file, null);
            assertThat(asset.statusCode()).isEqualTo(200);
            assertSafetyHeaders(asset);
        }
        // The JSON API keeps its own answers.
        assertThat(APP.get(admin, "/v1/conflicts").headers().firstValue("Content-Security-Policy")).isEmpty();
    }

    @Test
    void theSessionCookieIsHttpOnlyStrictAndHoldsNoToken() {
        HttpResponse<String> form = get("/sign-in", null);
        HttpResponse<String> signedIn = postSignIn(admin, form);
        assertThat(signedIn.statusCode()).isEqualTo(303);
        assertThat(signedIn.headers().firstValue("Location")).hasValueSatisfying(l -> assertThat(l).endsWith("/"));
        String cookie = signedIn.headers().allValues("Set-Cookie").stream()
                .filter(c -> c.startsWith(SessionCookies.SESSION + "=")).findFirst().orElseThrow();
        assertThat(cookie).contains("; HttpOnly").contains("; SameSite=Lax").contains("; Path=/")
                .doesNotContain("Secure").doesNotContain(admin);
        String value = cookie.substring(SessionCookies.SESSION.length() + 1, cookie.indexOf(';'));
        // Only the hash of the session id is stored.
        long stored = superuser.withHandle(h -> h.createQuery(
                        "SELECT count(*) FROM web_sessions WHERE id_sha256 = sha256(convert_to(:v, 'UTF8'))")
                .bind("v", value).mapTo(Long.class).one());
        assertThat(stored).isEqualTo(1);
        // The cookie is not a credential for the JSON API, which takes the Authorization header alone.
        HttpResponse<String> api = APP.send(HttpRequest.newBuilder(APP.uri("/v1/conflicts"))
                .header("Cookie", SessionCookies.SESSION + "=" + value).GET().build());
        assertThat(api.statusCode()).isEqualTo(401);
    }

    @Test
    void aTokenInTheUrlSignsNobodyIn() {
        HttpResponse<String> page = get("/sign-in?token=" + admin, null);
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().allValues("Set-Cookie")).noneMatch(c -> c.startsWith(SessionCookies.SESSION + "="));
        assertThat(page.body()).doesNotContain(admin).contains("<form method=\"post\" action=\"/sign-in\"");
        assertThat(get("/?token=" + admin, null).statusCode()).isEqualTo(303);
    }

    @Test
    void aForgedSignInIsRefused() {
        HttpResponse<String> form = get("/sign-in", null);
        String value = match(SIGN_IN_VALUE, form.body());
        // The form's value without the cookie it pairs with: what another site's form would send.
        HttpResponse<String> forged = post("/sign-in", null, "token=" + admin + "&sign_in=" + value, List.of());
        assertThat(forged.statusCode()).isEqualTo(403);
        assertThat(forged.headers().allValues("Set-Cookie")).noneMatch(c -> c.startsWith(SessionCookies.SESSION + "="));
    }

    @Test
    void crossSiteAndKeylessFormPostsChangeNothing() {
        String session = signIn(admin);
        String key = match(FORM_KEY, get("/conflicts/" + conflict, session).body());
        String before = Seed.inboxState(superuser, conflict);
        String path = "/conflicts/" + conflict + "/resolve";
        String body = "resolution=manual&form_key=" + key;
        assertThat(post(path, session, "resolution=manual", List.of()).statusCode()).isEqualTo(403);
        assertThat(post(path, session, "resolution=manual&form_key=" + key.substring(1) + "x", List.of()).statusCode())
                .isEqualTo(403);
        assertThat(post(path, session, body, List.of("Sec-Fetch-Site", "cross-site")).statusCode()).isEqualTo(403);
        assertThat(post(path, session, body, List.of("Origin", "https://evil.example")).statusCode()).isEqualTo(403);
        assertThat(post("/sign-out", session, "", List.of()).statusCode()).isEqualTo(403);
        assertThat(Seed.inboxState(superuser, conflict)).isEqualTo(before);
        // The same form, same-site with its key, goes through.
        HttpResponse<String> ok = post("/conflicts/" + conflict + "/acknowledge", session, "form_key=" + key,
                List.of("Sec-Fetch-Site", "same-origin", "Origin", "null"));
        assertThat(ok.statusCode()).isEqualTo(303);
        assertThat(ok.headers().firstValue("Location")).hasValueSatisfying(l -> assertThat(l).contains("notice=acknowledged"));
    }

    @Test
    void tryAgainIsGuardedLikeEveryFormAndKeepsToTheSessionsOrg() {
        UUID marked = Marked.conflict(superuser, ORG, "synthesizer");
        String session = signIn(admin);
        String key = match(FORM_KEY, get("/conflicts/" + marked, session).body());
        String path = "/conflicts/" + marked + "/retry";
        String before = Marked.everything(superuser, marked);
        assertThat(post(path, session, "", List.of()).statusCode()).isEqualTo(403);
        assertThat(post(path, session, "form_key=" + key, List.of("Sec-Fetch-Site", "cross-site")).statusCode())
                .isEqualTo(403);
        // Another org's admin, with a valid form of its own session, finds no such conflict.
        String stranger = signIn(APP.token(Role.ORG_ADMIN, UUID.randomUUID()));
        String strangerKey = match(FORM_KEY, get("/", stranger).body());
        HttpResponse<String> elsewhere = post(path, stranger, "form_key=" + strangerKey, List.of());
        assertThat(elsewhere.statusCode()).isEqualTo(404);
        assertThat(Marked.everything(superuser, marked)).isEqualTo(before);

        HttpResponse<String> ok = post(path, session, "form_key=" + key, List.of("Sec-Fetch-Site", "same-origin"));
        assertThat(ok.statusCode()).isEqualTo(303);
        assertThat(ok.headers().firstValue("Location")).hasValueSatisfying(l -> assertThat(l).contains("notice=requeued"));
        assertThat(Marked.row(superuser, marked)).startsWith("pending|0|");
        HttpResponse<String> again = post(path, session, "form_key=" + key, List.of());
        assertThat(again.headers().firstValue("Location")).hasValueSatisfying(l -> assertThat(l).contains("notice=not_marked"));
        assertThat(Marked.onlyRequeueEvent(superuser, marked).get("role").asText()).isEqualTo("org_admin");
    }

    @Test
    void aRevokedTokenOrAnExpiredSessionEndsTheSession() {
        String revoked = APP.token(Role.ORG_ADMIN, ORG);
        String session = signIn(revoked);
        assertThat(get("/", session).statusCode()).isEqualTo(200);
        superuser.useHandle(h -> h.createUpdate("UPDATE api_tokens SET revoked_at = now() WHERE token_sha256 = "
                + "sha256(convert_to(:t, 'UTF8'))").bind("t", revoked).execute());
        assertThat(get("/", session).statusCode()).isEqualTo(303);

        String expiring = signIn(admin);
        superuser.useHandle(h -> h.createUpdate("UPDATE web_sessions SET created_at = now() - interval '11 hours', "
                + "expires_at = now() - interval '1 hour' WHERE id_sha256 = sha256(convert_to(:v, 'UTF8'))")
                .bind("v", expiring).execute());
        assertThat(get("/", expiring).statusCode()).isEqualTo(303);
    }

    @Test
    void orgAdminsGetNoOperatorPages() {
        String session = signIn(admin);
        assertThat(get("/operator", session).statusCode()).isEqualTo(403);
        String key = match(FORM_KEY, get("/", session).body());
        assertThat(post("/operator/synthesis", session, "org=" + ORG + "&monthly_budget_usd=1000&form_key=" + key,
                List.of()).statusCode()).isEqualTo(403);
        long settings = superuser.withHandle(h -> h.createQuery("SELECT count(*) FROM org_synthesis_settings")
                .mapTo(Long.class).one());
        assertThat(settings).isZero();
    }

    @Test
    void theOperatorsOwnPagesAndFormsArePlatformOnlyAndCheckTheFormKey() {
        String session = signIn(admin);
        String adminKey = match(FORM_KEY, get("/", session).body());
        for (String path : List.of("/operator/failed", "/operator/replicas", "/operator/time", "/operator/tokens",
                "/operator/orgs/" + ORG)) {
            assertThat(get(path, session).statusCode()).as(path).isEqualTo(403);
            assertThat(get(path, null).statusCode()).as(path).isEqualTo(303);
        }
        for (String form : List.of("/operator/tokens/mint", "/operator/orgs/" + ORG + "/name",
                "/operator/failed/retry-reason")) {
            assertThat(post(form, session, "role=platform&name=Taken&reason=synthesizer&form_key=" + adminKey,
                    List.of()).statusCode()).as(form).isEqualTo(403);
        }
        String platform = signIn(APP.token(Role.PLATFORM, null));
        for (String path : List.of("/operator/failed", "/operator/replicas", "/operator/time", "/operator/tokens",
                "/operator/orgs/" + ORG)) {
            HttpResponse<String> page = get(path, platform);
            assertThat(page.statusCode()).as(path).isEqualTo(200);
            assertSafetyHeaders(page);
        }
        // The platform's own forms without this session's key, or from another site, change nothing.
        String key = match(FORM_KEY, get("/operator/tokens", platform).body());
        assertThat(post("/operator/tokens/mint", platform, "role=platform&form_key=wrong", List.of()).statusCode())
                .isEqualTo(403);
        assertThat(post("/operator/orgs/" + ORG + "/name", platform, "name=Forged&form_key=" + key,
                List.of("Sec-Fetch-Site", "cross-site")).statusCode()).isEqualTo(403);
        long platformChanges = superuser.withHandle(h -> h.createQuery("""
                        SELECT count(*) FROM conflict_events WHERE event_type IN ('token_minted', 'org_named')
                           AND details ->> 'requested_by' = 'token'""").mapTo(Long.class).one());
        assertThat(platformChanges).isZero();
        long names = superuser.withHandle(h -> h.createQuery("SELECT count(*) FROM org_names").mapTo(Long.class).one());
        assertThat(names).isZero();
    }

    @Test
    void anUnknownModelIsRefused() {
        String session = signIn(APP.token(Role.PLATFORM, null));
        String key = match(FORM_KEY, get("/operator", session).body());
        HttpResponse<String> refused = post("/operator/synthesis", session,
                "org=" + ORG + "&model=" + enc("openai/unknown") + "&monthly_budget_usd=5&form_key=" + key, List.of());
        assertThat(refused.headers().firstValue("Location")).hasValueSatisfying(l -> assertThat(l).contains("invalid_model"));
        HttpResponse<String> saved = post("/operator/synthesis", session,
                "org=" + ORG + "&model=&monthly_budget_usd=5&form_key=" + key, List.of());
        assertThat(saved.headers().firstValue("Location")).hasValueSatisfying(l -> assertThat(l).contains("settings_saved"));
        String stored = superuser.withHandle(h -> h.createQuery(
                        "SELECT coalesce(model, 'none') || ' ' || monthly_budget_usd FROM org_synthesis_settings")
                .mapTo(String.class).one());
        assertThat(stored).isEqualTo("none 5.000000");
    }

    @Test
    void templatesNeverWriteAValueUnescaped() throws IOException {
        Path templates = Path.of("src/main/resources/web/templates");
        try (Stream<Path> files = Files.list(templates)) {
            for (Path file : files.toList()) {
                String text = Files.readString(file);
                assertThat(text).as(file.toString()).doesNotContain("{{{").doesNotContain("{{&").doesNotContain("style=")
                        .doesNotContain("<script>").doesNotContainPattern("\\son[a-z]+=");
            }
        }
    }

    private static void assertSafetyHeaders(HttpResponse<String> response) {
        assertThat(response.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(csp -> assertThat(csp)
                .contains("default-src 'none'").contains("script-src 'self'").contains("style-src 'self'")
                .contains("form-action 'self'").contains("frame-ancestors 'none'").contains("base-uri 'none'")
                .doesNotContain("unsafe"));
        assertThat(response.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        assertThat(response.headers().firstValue("Referrer-Policy")).hasValue("no-referrer");
        assertThat(response.headers().firstValue("X-Frame-Options")).hasValue("DENY");
    }

    /** Signs in as a browser would and returns the session cookie's value. */
    static String signIn(String token) {
        HttpResponse<String> signedIn = postSignIn(token, get("/sign-in", null));
        assertThat(signedIn.statusCode()).isEqualTo(303);
        String cookie = signedIn.headers().allValues("Set-Cookie").stream()
                .filter(c -> c.startsWith(SessionCookies.SESSION + "=")).findFirst().orElseThrow();
        return cookie.substring(SessionCookies.SESSION.length() + 1, cookie.indexOf(';'));
    }

    private static HttpResponse<String> postSignIn(String token, HttpResponse<String> form) {
        String value = match(SIGN_IN_VALUE, form.body());
        return APP.send(HttpRequest.newBuilder(APP.uri("/sign-in"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Cookie", SessionCookies.SIGN_IN + "=" + value)
                .POST(HttpRequest.BodyPublishers.ofString("token=" + enc(token) + "&sign_in=" + value)).build());
    }

    static HttpResponse<String> get(String path, String session) {
        HttpRequest.Builder request = HttpRequest.newBuilder(APP.uri(path)).GET();
        if (session != null) {
            request.header("Cookie", SessionCookies.SESSION + "=" + session);
        }
        return APP.send(request.build());
    }

    static HttpResponse<String> post(String path, String session, String form, List<String> headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(APP.uri(path))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form));
        if (session != null) {
            request.header("Cookie", SessionCookies.SESSION + "=" + session);
        }
        for (int i = 0; i < headers.size(); i += 2) {
            request.header(headers.get(i), headers.get(i + 1));
        }
        return APP.send(request.build());
    }

    static String match(Pattern pattern, String html) {
        Matcher m = pattern.matcher(html);
        assertThat(m.find()).as("no %s in %s", pattern, html).isTrue();
        return m.group(1);
    }

    static String enc(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }
}
