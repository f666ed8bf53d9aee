package io.mergesynthesis.service.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.TestApp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * Signing in with a real identity provider: Keycloak, started once for the class on a loopback port with the realm
 * of the tests' resources, and the console driven through Keycloak's own login form in headless Chromium. An org
 * admin acts and is named on the page, in the API and in both event formats; a viewer reads and is refused every
 * change; an operator reaches the operator pages; people without a usable role or org are turned away naming the
 * claim; a callback that did not start in this browser, and a code used twice, sign no one in; signing out ends the
 * session here and at the provider.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class ProviderSignInBrowserTest {

    static final Keycloak KEYCLOAK = Keycloak.start();
    static final int PORT = freePort();
    static final TestApp APP = TestApp.create(
            ConfigOverride.config("synthesis.enabled", "false"),
            ConfigOverride.config("server.applicationConnectors[0].port", Integer.toString(PORT)),
            ConfigOverride.config("web.publicBaseUrl", "http://127.0.0.1:" + PORT),
            ConfigOverride.config("web.oidc.issuer", KEYCLOAK.issuer()),
            ConfigOverride.config("web.oidc.clientId", Keycloak.CLIENT_ID),
            ConfigOverride.config("web.oidc.clientSecret", Keycloak.CLIENT_SECRET),
            ConfigOverride.config("web.oidc.machineAudience", "merge-synthesis-api"));
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();
    static final UUID ORG = UUID.fromString(Keycloak.ORG);
    static final ObjectMapper JSON = new ObjectMapper();

    static Browser browser;
    static ChromeDriver driver;
    static String platform;
    static String viewerToken;
    static UUID toAcknowledge;
    static UUID toResolve;
    static UUID forTheViewer;
    static UUID toRetry;
    static UUID forTheBulk;

    @BeforeAll
    static void seed() {
        Jdbi superuser = APP.database().jdbi();
        platform = APP.token(Role.PLATFORM, null);
        viewerToken = APP.token(Role.ORG_VIEWER, ORG);
        toAcknowledge = WebSeed.one(APP, platform, ORG, "people-ack", "drive.share_file");
        toResolve = WebSeed.one(APP, platform, ORG, "people-resolve", "jira.create_issue");
        WebSeed.synthesized(superuser, toResolve, WebSeed.merge(toResolve, ORG, "jira.create_issue",
                "The org rule wins; the member rule is removed."));
        forTheViewer = WebSeed.one(APP, platform, ORG, "people-viewer", "slack.post_message");
        WebSeed.synthesized(superuser, forTheViewer, WebSeed.merge(forTheViewer, ORG, "slack.post_message",
                "The org rule wins."));
        toRetry = WebSeed.one(APP, platform, ORG, "people-retry", "crm.sync_accounts");
        WebSeed.failed(superuser, toRetry, "synthesizer");
        WebSeed.attempt(superuser, ORG, toRetry, 1, "permanent_failure", "synthesizer", "provider answered 503");
        forTheBulk = WebSeed.one(APP, platform, ORG, "people-bulk", "kb.search");
        browser = Browser.start();
        driver = browser.driver();
    }

    @AfterAll
    static void stop() {
        try {
            if (browser != null) {
                browser.close();
            }
        } finally {
            KEYCLOAK.close();
        }
    }

    @BeforeEach
    void signedOutEverywhere() {
        // The console's cookies and Keycloak's (under its realm's path, which WebDriver's own deletion does not
        // reach from a page of the console): the browser forgets both sessions.
        driver.get(url("/sign-in"));
        driver.executeCdpCommand("Network.clearBrowserCookies", Map.of());
    }

    @Test
    void anOrgAdminSignsInActsAndIsNamedOnThePageInTheApiAndInTheEvents() throws Exception {
        signInAs("alice");
        assertThat(driver.getCurrentUrl()).isEqualTo(url("/"));
        assertThat(text("#signed-in-person")).isEqualTo("Alice Example");
        browser.screenshot("signed-in-with-provider");

        driver.get(url("/conflicts/" + toAcknowledge));
        driver.findElement(By.xpath("//button[text()='Acknowledge']")).click();
        waitFor(ExpectedConditions.urlContains("notice=acknowledged"));
        assertThat(text("#acknowledged-by")).isEqualTo("Alice Example");

        driver.get(url("/conflicts/" + toResolve));
        driver.findElement(By.id("resolution-accepted_suggestion")).click();
        driver.findElement(By.xpath("//button[text()='Resolve']")).click();
        waitFor(ExpectedConditions.urlContains("notice=resolved"));
        assertThat(text("p.resolution")).contains("by Alice Example");
        driver.get(url("/?inbox_status=all"));
        assertThat(driver.findElement(By.cssSelector("tr[data-id='" + toResolve + "']")).getText())
                .contains("resolved").contains("by Alice Example");

        JsonNode conflict = JSON.readTree(APP.get(viewerToken, "/v1/conflicts/" + toResolve).body());
        JsonNode resolvedBy = conflict.path("inbox").path("resolved_by");
        assertThat(resolvedBy.path("type").asText()).isEqualTo("person");
        assertThat(resolvedBy.path("name").asText()).isEqualTo("Alice Example");
        assertThat(resolvedBy.path("email").asText()).isEqualTo("alice@example.com");
        String subject = resolvedBy.path("id").asText();
        assertThat(subject).isNotBlank();

        List<JsonNode> events = APP.get(platform, "/v1/events?format=ndjson&org_id=" + ORG).body().lines()
                .map(ProviderSignInBrowserTest::json).toList();
        assertThat(events).anySatisfy(e -> {
            assertThat(e.path("merge_synthesis").path("event_type").asText()).isEqualTo("conflict_resolved");
            assertThat(e.path("user").path("id").asText()).isEqualTo(subject);
            assertThat(e.path("user").path("email").asText()).isEqualTo("alice@example.com");
            assertThat(e.path("user").path("name").asText()).isEqualTo("Alice Example");
        });
        String cef = APP.get(platform, "/v1/events?format=cef&org_id=" + ORG).body();
        assertThat(cef.lines().filter(l -> l.contains("|conflict_resolved|")))
                .anySatisfy(l -> assertThat(l).contains("suid=" + subject).contains("suser=Alice Example"));

        // Try again: the attempt history's re-queue line names her.
        driver.get(url("/conflicts/" + toRetry));
        driver.findElement(By.xpath("//button[text()='Try again']")).click();
        waitFor(ExpectedConditions.urlContains("notice=requeued"));
        assertThat(text("#history-heading + table")).contains("re-queued by Alice Example (role org_admin)");

        // A bulk action: the event names her too.
        driver.get(url("/"));
        driver.findElement(By.cssSelector("input[name=id][value='" + forTheBulk + "']")).click();
        driver.findElement(By.cssSelector("form#bulk button[value=selected]")).click();
        waitFor(ExpectedConditions.presenceOfElementLocated(By.id("bulk-heading")));
        JsonNode bulked = JSON.readTree(APP.get(viewerToken, "/v1/conflicts/" + forTheBulk).body());
        assertThat(bulked.path("inbox").path("acknowledged_by").path("name").asText()).isEqualTo("Alice Example");
        assertThat(APP.get(platform, "/v1/events?format=ndjson&org_id=" + ORG).body().lines()
                .map(ProviderSignInBrowserTest::json)
                .filter(e -> forTheBulk.toString().equals(e.path("merge_synthesis").path("conflict_id").asText()))
                .filter(e -> "conflict_acknowledged".equals(e.path("merge_synthesis").path("event_type").asText())))
                .singleElement().satisfies(e -> assertThat(e.path("user").path("name").asText())
                        .isEqualTo("Alice Example"));

        // Signing out ends the session here and Keycloak's: the next sign-in asks for the password again.
        driver.get(url("/"));
        driver.findElement(By.xpath("//button[text()='Sign out']")).click();
        waitFor(ExpectedConditions.urlToBe(url("/sign-in")));
        assertThat(driver.manage().getCookieNamed(SessionCookies.SESSION)).isNull();
        driver.get(url("/"));
        assertThat(driver.getCurrentUrl()).isEqualTo(url("/sign-in"));
        driver.findElement(By.id("sign-in-with-provider")).click();
        waitFor(ExpectedConditions.presenceOfElementLocated(By.id("username")));
        assertThat(driver.getCurrentUrl()).startsWith(KEYCLOAK.issuer());
    }

    @Test
    void aViewerReadsTheOrgAndIsRefusedEveryChange() throws Exception {
        signInAs("victor");
        assertThat(text("#signed-in-person")).isEqualTo("Victor Viewer");
        assertThat(text("header .who")).contains("org_viewer").contains("read only");
        assertThat(text("table.conflicts")).contains("slack.post_message");
        assertThat(driver.findElements(By.cssSelector("form[action='/bulk']"))).isEmpty();

        driver.get(url("/conflicts/" + forTheViewer));
        assertThat(text("h1")).isNotEmpty();
        assertThat(driver.findElements(By.xpath("//button[text()='Acknowledge' or text()='Resolve' "
                + "or text()='Try again']"))).isEmpty();

        // Posted by hand with this session's own form key: each is refused, naming the roles that may.
        String formKey = driver.findElement(By.cssSelector("form[action='/sign-out'] input[name=form_key]"))
                .getAttribute("value");
        Map<String, String> changes = Map.of(
                "/conflicts/" + forTheViewer + "/acknowledge", "form_key=" + formKey,
                "/conflicts/" + forTheViewer + "/resolve", "form_key=" + formKey + "&resolution=manual",
                "/conflicts/" + forTheViewer + "/retry", "form_key=" + formKey,
                "/bulk", "form_key=" + formKey + "&operation=acknowledge&scope=selected&id=" + forTheViewer);
        for (Map.Entry<String, String> change : changes.entrySet()) {
            Object answer = driver.executeAsyncScript("""
                    const done = arguments[arguments.length - 1];
                    fetch(arguments[0], {method: 'POST', body: arguments[1], redirect: 'manual',
                        headers: {'Content-Type': 'application/x-www-form-urlencoded'}})
                      .then(r => r.text().then(t => done(r.status + ' ' + t)));
                    """, change.getKey(), change.getValue());
            assertThat((String) answer).as(change.getKey()).startsWith("403 ").contains("org_admin");
        }
        JsonNode still = JSON.readTree(APP.get(viewerToken, "/v1/conflicts/" + forTheViewer).body());
        assertThat(still.path("inbox").path("status").asText()).isEqualTo("open");

        // The API says the same to a viewer's token.
        HttpResponse<String> refused = APP.post(viewerToken, "/v1/conflicts/" + forTheViewer + "/acknowledge", "");
        assertThat(refused.statusCode()).isEqualTo(403);
        assertThat(refused.body()).contains("org_admin").contains("org_viewer");
    }

    @Test
    void anOperatorSignsInToTheOperatorPages() {
        signInAs("petra");
        assertThat(driver.getCurrentUrl()).isEqualTo(url("/operator"));
        assertThat(text("#signed-in-person")).isEqualTo("Petra Platform");
        driver.get(url("/operator/tokens"));
        assertThat(text("table.people")).contains("Petra Platform").contains("petra@example.com")
                .contains("platform");
    }

    @Test
    void peopleWithoutARoleOrAnOrgAreTurnedAwayByAPageNamingTheClaim() {
        signInAs("nora");
        assertThat(text("h1")).isEqualTo("Missing claim: roles");
        assertThat(driver.manage().getCookieNamed(SessionCookies.SESSION)).isNull();

        driver.executeCdpCommand("Network.clearBrowserCookies", Map.of());
        signInAs("olga");
        assertThat(text("h1")).isEqualTo("Missing claim: org_id");
        assertThat(driver.manage().getCookieNamed(SessionCookies.SESSION)).isNull();
        driver.get(url("/"));
        assertThat(driver.getCurrentUrl()).isEqualTo(url("/sign-in"));
    }

    @Test
    void aCallbackThatDidNotStartInThisBrowserSignsNoOneIn() {
        driver.get(url("/auth/callback?code=made-up&state=made-up"));
        assertThat(text("h1")).isEqualTo("Sign-in not accepted");
        assertThat(text("p.lead")).contains("did not start in this browser");
        driver.get(url("/"));
        assertThat(driver.getCurrentUrl()).isEqualTo(url("/sign-in"));
    }

    /** Keycloak's login form driven by plain HTTP, to hold on to the callback and present its code twice. */
    @Test
    void aCodeUsedTwiceSignsNoOneInTheSecondTime() throws Exception {
        // Keycloak's cookies are marked Secure, which java.net's cookie handling keeps off http: carried by hand.
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> start = http.send(HttpRequest.newBuilder(APP.uri("/auth/sign-in")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(start.statusCode()).isEqualTo(303);
        String providerCookie = cookie(start, SessionCookies.PROVIDER_SIGN_IN);
        URI authorize = URI.create(start.headers().firstValue("Location").orElseThrow());
        assertThat(authorize.getQuery()).contains("code_challenge_method=S256").contains("nonce=");
        HttpResponse<String> form = http.send(HttpRequest.newBuilder(authorize).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        Matcher action = Pattern.compile("action=\"([^\"]+)\"").matcher(form.body());
        assertThat(action.find()).isTrue();
        URI login = URI.create(action.group(1).replace("&amp;", "&"));
        String keycloakCookies = form.headers().allValues("Set-Cookie").stream()
                .map(c -> c.substring(0, c.indexOf(';') < 0 ? c.length() : c.indexOf(';')))
                .reduce((a, b) -> a + "; " + b).orElse("");
        HttpResponse<String> back = http.send(HttpRequest.newBuilder(login)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Cookie", keycloakCookies)
                .POST(HttpRequest.BodyPublishers.ofString("username=alice&password=alice-password")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(back.statusCode()).isEqualTo(302);
        URI callback = URI.create(back.headers().firstValue("Location").orElseThrow());
        assertThat(callback.getPath()).isEqualTo("/auth/callback");

        HttpResponse<String> first = callback(callback, providerCookie);
        assertThat(first.statusCode()).isEqualTo(303);
        assertThat(cookie(first, SessionCookies.SESSION)).isNotEmpty();

        HttpResponse<String> again = callback(callback, providerCookie);
        assertThat(again.statusCode()).isEqualTo(401);
        assertThat(again.body()).contains("refused the sign-in code");
        assertThat(again.headers().allValues("Set-Cookie"))
                .noneMatch(c -> c.startsWith(SessionCookies.SESSION + "=") && !c.contains("Max-Age=0"));
    }

    /** A policy engine with the provider's client credentials reports conflicts; others' tokens are refused. */
    @Test
    void aMachineWithTheProvidersAccessTokenReportsConflictsAndNothingMore() throws Exception {
        String engine = clientCredentials("policy-engine", "engine-secret-for-tests-only");
        HttpResponse<String> reported = APP.post(engine, "/v1/conflicts",
                WebSeed.report(ORG, "from-the-engine", "wiki.edit_page"));
        assertThat(reported.statusCode()).as(reported.body()).isEqualTo(201);
        assertThat(APP.get(engine, "/v1/events?format=ndjson").statusCode()).as("ingest reads no events")
                .isEqualTo(403);

        String another = clientCredentials("another-app", "another-secret-for-tests-only");
        assertThat(APP.post(another, "/v1/conflicts", WebSeed.report(ORG, "from-another", "wiki.edit_page"))
                .statusCode()).as("a token meant for another audience").isEqualTo(401);
        String[] parts = engine.split("\\.");
        String forged = parts[0] + "." + parts[1] + "." + new StringBuilder(parts[2]).reverse();
        assertThat(APP.post(forged, "/v1/conflicts", WebSeed.report(ORG, "forged", "wiki.edit_page")).statusCode())
                .as("a token whose signature does not match").isEqualTo(401);
    }

    private static String clientCredentials(String client, String secret) throws Exception {
        HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(KEYCLOAK.issuer() + "/protocol/openid-connect/token"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Authorization", "Basic " + java.util.Base64.getEncoder().encodeToString(
                        (client + ":" + secret).getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .POST(HttpRequest.BodyPublishers.ofString("grant_type=client_credentials")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        return JSON.readTree(answer.body()).path("access_token").asText();
    }

    private static HttpResponse<String> callback(URI callback, String providerCookie) {
        return APP.send(HttpRequest.newBuilder(APP.uri(callback.getPath() + "?" + callback.getRawQuery()))
                .header("Cookie", SessionCookies.PROVIDER_SIGN_IN + "=" + providerCookie).GET().build());
    }

    private static String cookie(HttpResponse<String> answer, String name) {
        return answer.headers().allValues("Set-Cookie").stream()
                .filter(c -> c.startsWith(name + "="))
                .map(c -> c.substring(name.length() + 1, c.indexOf(';')))
                .findFirst().orElse("");
    }

    /** Through Keycloak's own login form, as a person would. */
    private static void signInAs(String username) {
        driver.get(url("/sign-in"));
        driver.findElement(By.id("sign-in-with-provider")).click();
        waitFor(ExpectedConditions.presenceOfElementLocated(By.id("username")));
        driver.findElement(By.id("username")).sendKeys(username);
        driver.findElement(By.id("password")).sendKeys(username + "-password");
        driver.findElement(By.id("kc-login")).click();
        waitFor(ExpectedConditions.urlContains("127.0.0.1:" + PORT + "/"));
        waitFor(ExpectedConditions.presenceOfElementLocated(By.cssSelector("main h1, main table, main section")));
    }

    private static String text(String css) {
        return BrowserSteps.text(driver, css);
    }

    private static void waitFor(org.openqa.selenium.support.ui.ExpectedCondition<?> condition) {
        BrowserSteps.waitFor(driver, condition);
    }

    private static JsonNode json(String line) {
        try {
            return JSON.readTree(line);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int freePort() {
        try {
            return Keycloak.freePort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String url(String path) {
        return "http://127.0.0.1:" + PORT + path;
    }
}
