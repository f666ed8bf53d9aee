package io.mergesynthesis.service.resources;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.OneConnection;
import io.mergesynthesis.service.testing.Seed;
import io.mergesynthesis.service.testing.TestApp;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Inbox paging as documented, and every kind of bad input: a clear 4xx, and nothing written. */
@ExtendWith(DropwizardExtensionsSupport.class)
class BadInputTest {

    static final TestApp APP = TestApp.apiOnly();
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    static final UUID ORG = UUID.randomUUID();
    static String admin;
    static String siem;
    static String ingest;
    static UUID conflict;
    static Jdbi db;

    @BeforeAll
    static void seed() {
        admin = APP.token(Role.ORG_ADMIN, ORG);
        siem = APP.token(Role.SIEM, ORG);
        ingest = APP.token(Role.INGEST, ORG);
        db = APP.database().jdbi();
        conflict = Seed.conflict(APP, ingest, ORG, "bad-input", "jira.create_issue");
    }

    private static void assertRefused(HttpResponse<String> response, int status, String messagePart) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        JsonNode body = Seed.parse(response.body());
        String everything = body.get("message").asText() + " " + body.path("errors");
        assertThat(everything).as(response.body()).containsIgnoringCase(messagePart);
    }

    @Test
    void badQueryValuesAre400WithWhatWasWrong() {
        String cursorOfAnotherVersion = Base64.getUrlEncoder().withoutPadding()
                .encodeToString("e9:1:1".getBytes(StandardCharsets.US_ASCII));
        Map<String, String> events = Map.of(
                "/v1/events?after=garbage!", "cursor",
                "/v1/events?after=" + cursorOfAnotherVersion, "cursor",
                "/v1/events?limit=0", "limit",
                "/v1/events?limit=10001", "limit",
                "/v1/events?limit=ten", "limit",
                "/v1/events?format=xml", "format",
                "/v1/events?org_id=nope", "org_id");
        events.forEach((path, what) -> assertRefused(APP.get(siem, path), 400, what));

        // Cursors in the right shape whose time PostgreSQL cannot hold answered 500.
        String cursorBeforeTime = Base64.getUrlEncoder().withoutPadding().encodeToString(
                ("c1:" + Long.MIN_VALUE + ":" + conflict).getBytes(StandardCharsets.US_ASCII));
        String cursorAfterTime = Base64.getUrlEncoder().withoutPadding().encodeToString(
                ("c1:" + Long.MAX_VALUE + ":" + conflict).getBytes(StandardCharsets.US_ASCII));
        Map<String, String> inbox = Map.of(
                "/v1/conflicts?inbox_status=closed", "inbox_status",
                "/v1/conflicts?synthesis_state=finished", "synthesis_state",
                "/v1/conflicts?limit=0", "limit",
                "/v1/conflicts?limit=201", "limit",
                "/v1/conflicts?cursor=abc", "cursor",
                "/v1/conflicts?cursor=" + cursorBeforeTime, "cursor",
                "/v1/conflicts?cursor=" + cursorAfterTime, "cursor");
        inbox.forEach((path, what) -> assertRefused(APP.get(admin, path), 400, what));

        assertThat(APP.get(siem, "/v1/events?limit=10000").statusCode()).isEqualTo(200);
        assertThat(APP.get(admin, "/v1/conflicts?limit=200").statusCode()).isEqualTo(200);
    }

    /**
     * Errors Jetty answers before Jersey sees the request had HTML bodies, or none (an unknown method, an Accept
     * naming nothing Jetty writes); they share the API's error body now.
     */
    @Test
    void errorsTheHttpLayerAnswersAreJsonToo() {
        int port = EXT.getLocalPort();
        Map<String, Integer> requests = Map.of(
                "FOO /v1/conflicts HTTP/1.1\r\nHost: x\r\n", 405,
                "GET /v1/conflicts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + admin + "\r\nAccept: ;;;\r\n", 400,
                "POST /v1/conflicts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + ingest
                        + "\r\nContent-Type: /\r\nContent-Length: 2\r\n\r\n{}", 400,
                "GET /v1/conflicts HTTP/1.1\r\nHost: x\r\nX-Broken header line\r\n", 400,
                "GET /v1/conflicts HTTP/1.1\r\n", 400,
                "GET /v1/conflicts?q=" + "q".repeat(100_000) + " HTTP/1.1\r\nHost: x\r\n", 414,
                "GET /v1/conflicts HTTP/1.1\r\nHost: x\r\nX-Filler: " + "f".repeat(20_000) + "\r\n", 431);
        requests.forEach((request, status) -> {
            String head = request.contains("\r\n\r\n") ? request.replaceFirst("\r\n\r\n", "\r\nConnection: close\r\n\r\n")
                    : request + "Connection: close\r\n\r\n";
            String answer = OneConnection.exchange(port, head.getBytes(StandardCharsets.ISO_8859_1));
            assertThat(answer).as(request).startsWith("HTTP/1.1 " + status);
            assertThat(answer.lines().filter(l -> l.regionMatches(true, 0, "Content-Type:", 0, 13)).findFirst())
                    .as(request).hasValueSatisfying(t -> assertThat(t).contains("application/json"));
            JsonNode body = Seed.parse(answer.substring(answer.indexOf("\r\n\r\n") + 4));
            assertThat(body.get("code").asInt()).isEqualTo(status);
            assertThat(body.get("message").asText()).as(request).isNotBlank();
        });
        // Jetty closes the connection after a request it could not parse; the answer must say so.
        String tooLong = OneConnection.exchange(port, ("GET /" + "a".repeat(70_000) + " HTTP/1.1\r\nHost: x\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        assertThat(tooLong).startsWith("HTTP/1.1 414");
        assertThat(tooLong.substring(0, tooLong.indexOf("\r\n\r\n"))).containsIgnoringCase("Connection: close");
    }

    @Test
    void invalidResolutionsChangeNothing() {
        String before = Seed.inboxState(db, conflict);
        long events = Seed.eventCount(db);
        String path = "/v1/conflicts/" + conflict + "/resolve";

        assertRefused(APP.post(admin, path, "{\"resolution\": \"manual\", \"note\": \"" + "x".repeat(2001) + "\"}"),
                422, "note");
        assertRefused(APP.post(admin, path, "{\"resolution\": \"ignored\"}"), 422, "resolution");
        assertRefused(APP.post(admin, path, "{\"note\": \"no resolution\"}"), 422, "resolution");
        assertRefused(APP.post(admin, path, "{\"resolution\": 3}"), 422, "resolution");
        assertRefused(APP.post(admin, path, "{\"resolution\": \"manual\", \"note\": 7}"), 422, "note");
        assertRefused(APP.post(admin, path, "{\"resolution\": \"manual\", \"notes\": \"typo\"}"), 422, "notes");
        assertRefused(APP.post(admin, path, "[\"manual\"]"), 422, "object");
        // PostgreSQL text holds no NUL (this answered 500); an unpaired surrogate was stored as '?'.
        assertRefused(APP.post(admin, path, "{\"resolution\": \"manual\", \"note\": \"a\\u0000b\"}"), 422, "NUL");
        assertRefused(APP.post(admin, path, "{\"resolution\": \"manual\", \"note\": \"bad\\udc00pair\"}"), 422,
                "surrogate");
        assertThat(APP.post(admin, path, "{\"resolution\": \"manual\"").statusCode()).isEqualTo(400);
        assertThat(APP.post(admin, path, "").statusCode()).isEqualTo(400);
        assertRefused(APP.post(admin, "/v1/conflicts/12/resolve", "{\"resolution\": \"manual\"}"), 400, "UUID");
        assertRefused(APP.post(admin, "/v1/conflicts/12/acknowledge", ""), 400, "UUID");

        assertThat(Seed.inboxState(db, conflict)).isEqualTo(before);
        assertThat(Seed.eventCount(db)).isEqualTo(events);

        var longestNote = APP.post(admin, path, "{\"resolution\": \"manual\", \"note\": \"" + "y".repeat(2000) + "\"}");
        assertThat(longestNote.statusCode()).as(longestNote.body()).isEqualTo(200);
        assertThat(Seed.eventCount(db)).isEqualTo(events + 1);
    }

    @Test
    void theInboxPagesNewestFirstFiftyByDefaultAndFiltersOnBothStates() {
        UUID org = UUID.randomUUID();
        String orgAdmin = APP.token(Role.ORG_ADMIN, org);
        String orgIngest = APP.token(Role.INGEST, org);
        List<UUID> created = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            created.add(Seed.conflict(APP, orgIngest, org, "page-" + i, "t" + i));
        }
        List<String> seen = new ArrayList<>();
        JsonNode first = Seed.parse(APP.get(orgAdmin, "/v1/conflicts").body());
        assertThat(first.get("conflicts")).hasSize(50);
        first.get("conflicts").forEach(c -> seen.add(c.get("id").asText()));
        JsonNode rest = Seed.parse(APP.get(orgAdmin, "/v1/conflicts?limit=200&cursor=" + first.get("next_cursor").asText()).body());
        assertThat(rest.get("conflicts")).hasSize(70);
        assertThat(rest.get("next_cursor").isNull()).isTrue();
        rest.get("conflicts").forEach(c -> seen.add(c.get("id").asText()));
        assertThat(new HashSet<>(seen)).hasSize(120);
        // Each ingest was its own request, so received_at rises with i: newest first means reverse order.
        List<String> newestFirst = new ArrayList<>(created.stream().map(UUID::toString).toList());
        java.util.Collections.reverse(newestFirst);
        assertThat(seen).containsExactlyElementsOf(newestFirst);

        for (UUID id : created.subList(0, 3)) {
            assertThat(APP.post(orgAdmin, "/v1/conflicts/" + id + "/acknowledge", "").statusCode()).isEqualTo(200);
        }
        Seed.synthesized(db, created.get(1));
        JsonNode acknowledged = Seed.parse(APP.get(orgAdmin, "/v1/conflicts?inbox_status=acknowledged").body());
        assertThat(acknowledged.get("conflicts")).extracting(c -> c.get("id").asText())
                .containsExactlyInAnyOrder(created.get(0).toString(), created.get(1).toString(), created.get(2).toString());
        JsonNode done = Seed.parse(APP.get(orgAdmin, "/v1/conflicts?inbox_status=acknowledged&synthesis_state=done").body());
        assertThat(done.get("conflicts")).extracting(c -> c.get("id").asText()).containsExactly(created.get(1).toString());
        JsonNode detail = Seed.parse(APP.get(orgAdmin, "/v1/conflicts/" + created.get(1)).body());
        assertThat(detail.at("/synthesis/state").asText()).isEqualTo("done");
        assertThat(detail.at("/synthesis/attempts").asInt()).isEqualTo(1);
        assertThat(detail.at("/synthesis/suggested_merge").isObject()).isTrue();
        assertThat(detail.at("/synthesis").has("last_failure_reason")).isTrue();
    }
}
