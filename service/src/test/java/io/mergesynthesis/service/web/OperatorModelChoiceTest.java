package io.mergesynthesis.service.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.TestApp;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The operator page's model choice follows the API's rule: a model whose provider has no key here is refused
 * (422, naming the variable), and an org whose stored model cannot be served is shown as waiting, with why.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class OperatorModelChoiceTest {

    static final TestApp APP = TestApp.apiOnly(
            ConfigOverride.config("llm.providers.anthropic.type", "anthropic"),
            ConfigOverride.config("llm.providers.anthropic.baseUrl", "http://127.0.0.1:9/"),
            ConfigOverride.config("llm.providers.local.type", "openai"),
            ConfigOverride.config("llm.providers.local.baseUrl", "http://127.0.0.1:9/v1"),
            ConfigOverride.config("llm.providers.local.apiKey", "local-key"),
            ConfigOverride.config("llm.models.local/small.inputPerMillionUsd", "1"),
            ConfigOverride.config("llm.models.local/small.outputPerMillionUsd", "5"),
            ConfigOverride.config("llm.models.anthropic/claude-sonnet-4-5.inputPerMillionUsd", "3"),
            ConfigOverride.config("llm.models.anthropic/claude-sonnet-4-5.outputPerMillionUsd", "15"));
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();
    static final Pattern SIGN_IN_VALUE = Pattern.compile("name=\"sign_in\" value=\"([^\"]+)\"");
    static final Pattern FORM_KEY = Pattern.compile("name=\"form_key\" value=\"([^\"]+)\"");

    static Jdbi superuser;
    static String session;

    @BeforeAll
    static void signIn() {
        superuser = APP.database().jdbi();
        String value = match(SIGN_IN_VALUE, get("/sign-in", null).body());
        HttpResponse<String> signedIn = APP.send(HttpRequest.newBuilder(APP.uri("/sign-in"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Cookie", SessionCookies.SIGN_IN + "=" + value)
                .POST(HttpRequest.BodyPublishers.ofString("token=" + enc(APP.token(Role.PLATFORM, null))
                        + "&sign_in=" + value)).build());
        String cookie = signedIn.headers().allValues("Set-Cookie").stream()
                .filter(c -> c.startsWith(SessionCookies.SESSION + "=")).findFirst().orElseThrow();
        session = cookie.substring(SessionCookies.SESSION.length() + 1, cookie.indexOf(';'));
    }

    @Test
    void aModelWithoutItsProvidersKeyIsRefusedNamingTheVariable() {
        UUID org = UUID.randomUUID();
        String key = match(FORM_KEY, get("/operator", session).body());

        HttpResponse<String> refused = post("org=" + org + "&model=" + enc("anthropic/claude-sonnet-4-5")
                + "&monthly_budget_usd=5&form_key=" + key);

        assertThat(refused.statusCode()).isEqualTo(422);
        assertThat(refused.body()).contains("Not saved: model &#39;anthropic/claude-sonnet-4-5&#39;")
                .contains("set ANTHROPIC_API_KEY");
        assertThat(storedFor(org)).isZero();
        assertThat(post("org=" + org + "&model=" + enc("local/small") + "&monthly_budget_usd=5&form_key=" + key)
                .headers().firstValue("Location")).hasValueSatisfying(l -> assertThat(l).contains("settings_saved"));
        assertThat(storedFor(org)).isOne();
    }

    @Test
    void anOrgWhoseStoredModelCannotBeServedIsShownWaitingWithWhatToSet() {
        UUID org = UUID.randomUUID();
        superuser.useHandle(h -> h.createUpdate("INSERT INTO org_synthesis_settings (org_id, model, updated_at) "
                + "VALUES (:org, 'anthropic/claude-sonnet-4-5', now())").bind("org", org).execute());

        String page = get("/operator", session).body();

        assertThat(page).contains("id=\"unservable-orgs\"");
        String row = page.substring(page.indexOf("model-" + org));
        row = row.substring(0, row.indexOf("</tr>"));
        assertThat(row).contains("class=\"model-problem\"").contains("Its conflicts wait")
                .contains("set ANTHROPIC_API_KEY")
                .contains("anthropic/claude-sonnet-4-5 (not usable: set ANTHROPIC_API_KEY)");
    }

    private static long storedFor(UUID org) {
        return superuser.withHandle(h -> h.createQuery("SELECT count(*) FROM org_synthesis_settings WHERE org_id = :org")
                .bind("org", org).mapTo(Long.class).one());
    }

    private static HttpResponse<String> get(String path, String session) {
        HttpRequest.Builder request = HttpRequest.newBuilder(APP.uri(path)).GET();
        if (session != null) {
            request.header("Cookie", SessionCookies.SESSION + "=" + session);
        }
        return APP.send(request.build());
    }

    private static HttpResponse<String> post(String form) {
        return APP.send(HttpRequest.newBuilder(APP.uri("/operator/synthesis"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Cookie", SessionCookies.SESSION + "=" + session)
                .POST(HttpRequest.BodyPublishers.ofString(form)).build());
    }

    private static String match(Pattern pattern, String html) {
        Matcher m = pattern.matcher(html);
        assertThat(m.find()).as("no %s in %s", pattern, html).isTrue();
        return m.group(1);
    }

    private static String enc(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }
}
