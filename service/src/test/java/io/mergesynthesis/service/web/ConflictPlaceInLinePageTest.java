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
 * A waiting conflict's page says how many of its own org's conflicts are ahead of it; other orgs' backlogs do not
 * count, since the claims share the workers between orgs. A conflict no longer waiting says nothing of it.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class ConflictPlaceInLinePageTest {

    static final TestApp APP = TestApp.apiOnly();
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();
    static final Pattern SIGN_IN_VALUE = Pattern.compile("name=\"sign_in\" value=\"([^\"]+)\"");
    static final Pattern AHEAD = Pattern.compile("Waiting: <strong>([^<]+)</strong> of this org's conflicts are ahead");

    @Test
    void aWaitingConflictsPageShowsThoseOfItsOrgAheadOfIt() {
        UUID org = UUID.randomUUID();
        insert(UUID.randomUUID(), 1_500, "-3 hours");
        insert(org, 1_234, "-2 hours");
        UUID last = insert(org, 1, "-1 hour");
        String session = signIn(APP.token(Role.ORG_ADMIN, org));

        HttpResponse<String> page = get("/conflicts/" + last, session);

        assertThat(page.statusCode()).isEqualTo(200);
        Matcher ahead = AHEAD.matcher(page.body());
        assertThat(ahead.find()).as(page.body()).isTrue();
        assertThat(ahead.group(1)).isEqualTo("1,234");

        APP.database().jdbi().useHandle(h -> h.createUpdate(
                "UPDATE policy_conflicts SET synthesis_state = 'waiting_budget' WHERE id = :id")
                .bind("id", last).execute());
        assertThat(get("/conflicts/" + last, session).body()).doesNotContain("of this org's conflicts are ahead");
    }

    /** {@code count} pending conflicts of {@code org}, a millisecond apart, from {@code since} ago; the last id. */
    private static UUID insert(UUID org, int count, String since) {
        return APP.database().jdbi().withHandle(h -> h.createQuery("""
                        INSERT INTO policy_conflicts
                            (id, org_id, dedup_key, action, target, rules, winner_policy_id, detected_at, not_before)
                        SELECT gen_random_uuid(), :org, 'line-' || :since || '-' || i, 'tool_call', 'jira.read', '[]', 'p1', now(),
                               now() + CAST(:since AS interval) + i * interval '1 millisecond'
                        FROM generate_series(1, :count) AS i
                        RETURNING id, not_before""")
                .bind("org", org).bind("count", count).bind("since", since)
                .map((rs, ctx) -> rs.getObject("id", UUID.class)).list()).get(count - 1);
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
