package io.mergesynthesis.service.web;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The replicas page shows each org's share of the last minute's provider calls, as the ledger has them from every
 * replica, beside the share its weight is due among the orgs called; calls older than the minute do not count.
 * The figures are the platform's: an org admin, even of an org listed, is turned back.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class ProviderSharesPageTest {

    static final TestApp APP = TestApp.apiOnly();
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();
    static final Pattern SIGN_IN_VALUE = Pattern.compile("name=\"sign_in\" value=\"([^\"]+)\"");

    @Test
    void eachOrgsShareOfTheLastMinutesCallsBesideItsDueShareForTheOperatorOnly() {
        UUID heavy = UUID.randomUUID();
        UUID middle = UUID.randomUUID();
        UUID light = UUID.randomUUID();
        UUID earlier = UUID.randomUUID();
        calls(heavy, 6, "-10 seconds");
        calls(middle, 3, "-20 seconds");
        calls(light, 1, "-30 seconds");
        calls(earlier, 5, "-5 minutes");
        APP.database().jdbi().useHandle(h -> h.createUpdate(
                "INSERT INTO org_synthesis_settings (org_id, weight) VALUES (:org, 2)").bind("org", heavy).execute());

        HttpResponse<String> page = get("/operator/replicas", signIn(APP.token(Role.PLATFORM, null)));

        assertThat(page.statusCode()).isEqualTo(200);
        String html = page.body();
        assertThat(html).contains("Each org's share of the last minute's calls");
        // Ten calls in the minute; weights 2, 1 and 1 make the due shares a half and two quarters.
        assertThat(row(html, heavy)).isEqualTo(new String[] {"6", "60.0%", "2", "50.0%"});
        assertThat(row(html, middle)).isEqualTo(new String[] {"3", "30.0%", "1", "25.0%"});
        assertThat(row(html, light)).isEqualTo(new String[] {"1", "10.0%", "1", "25.0%"});
        assertThat(html).doesNotContain(earlier.toString()).contains("All 3 orgs");
        assertThat(html.indexOf(heavy.toString())).isLessThan(html.indexOf(middle.toString()));
        assertThat(html.indexOf(middle.toString())).isLessThan(html.indexOf(light.toString()));

        HttpResponse<String> asAdmin = get("/operator/replicas", signIn(APP.token(Role.ORG_ADMIN, heavy)));

        assertThat(asAdmin.statusCode()).isEqualTo(403);
        assertThat(asAdmin.body()).doesNotContain("share of the last minute").doesNotContain("data-org=")
                .doesNotContain(middle.toString());
    }

    /** The calls, share, weight and due share of {@code org}'s row of the shares table. */
    private static String[] row(String html, UUID org) {
        Matcher m = Pattern.compile("<tr class=\"share\" data-org=\"" + org + "\">.*?<td class=\"calls\">([^<]+)</td>"
                + "<td class=\"share\">([^<]+)</td><td class=\"weight\">([^<]+)</td><td class=\"due\">([^<]+)</td>",
                Pattern.DOTALL).matcher(html);
        assertThat(m.find()).as("no row of %s in %s", org, html).isTrue();
        return new String[] {m.group(1), m.group(2), m.group(3), m.group(4)};
    }

    /** {@code count} answered calls for one conflict of {@code org}, put on record {@code ago} from now. */
    private static void calls(UUID org, int count, String ago) {
        APP.database().jdbi().useHandle(h -> {
            UUID conflict = h.createQuery("""
                            INSERT INTO policy_conflicts
                                (id, org_id, dedup_key, action, target, rules, winner_policy_id, detected_at)
                            VALUES (gen_random_uuid(), :org, 'shares-' || :org, 'tool_call', 'jira.read', '[]', 'p1',
                                    now())
                            RETURNING id""")
                    .bind("org", org).mapTo(UUID.class).one();
            h.createUpdate("""
                            INSERT INTO llm_usage_events (id, org_id, conflict_id, attempt, pass, provider, model,
                                                          input_tokens, output_tokens, cost_usd, latency_ms, outcome,
                                                          created_at)
                            SELECT gen_random_uuid(), :org, :conflict, 1, 'primary', 'stand-in', 'model', 100, 50,
                                   0.001, 900, 'stored', now() + CAST(:ago AS interval)
                              FROM generate_series(1, :count)""")
                    .bind("org", org).bind("conflict", conflict).bind("ago", ago).bind("count", count).execute();
        });
    }

    private static String signIn(String token) {
        String value = match(SIGN_IN_VALUE, get("/sign-in", null).body());
        HttpResponse<String> signedIn = APP.send(HttpRequest.newBuilder(APP.uri("/sign-in"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Cookie", SessionCookies.SIGN_IN + "=" + value)
                .POST(HttpRequest.BodyPublishers.ofString("token="
                        + URLEncoder.encode(token, StandardCharsets.UTF_8) + "&sign_in=" + value)).build());
        assertThat(signedIn.statusCode()).isEqualTo(303);
        String cookie = signedIn.headers().allValues("Set-Cookie").stream()
                .filter(c -> c.startsWith(SessionCookies.SESSION + "=")).findFirst().orElseThrow();
        return cookie.substring(SessionCookies.SESSION.length() + 1, cookie.indexOf(';'));
    }

    private static HttpResponse<String> get(String path, String session) {
        HttpRequest.Builder request = HttpRequest.newBuilder(APP.uri(path)).GET();
        if (session != null) {
            request.header("Cookie", SessionCookies.SESSION + "=" + session);
        }
        return APP.send(request.build());
    }

    private static String match(Pattern pattern, String html) {
        Matcher m = pattern.matcher(html);
        assertThat(m.find()).as("no %s in %s", pattern, html).isTrue();
        return m.group(1);
    }
}
