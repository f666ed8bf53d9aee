package io.mergesynthesis.service.resources;

import static io.mergesynthesis.service.testing.ConflictJson.batch;
import static io.mergesynthesis.service.testing.ConflictJson.report;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.OneConnection;
import io.mergesynthesis.service.testing.Seed;
import io.mergesynthesis.service.testing.TestApp;
import io.mergesynthesis.testsupport.Wait;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Who may call what, and what an org admin sees of the inbox. */
@ExtendWith(DropwizardExtensionsSupport.class)
class AuthAndReadTest {

    static final TestApp APP = TestApp.apiOnly();
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();
    static final ObjectMapper JSON = new ObjectMapper();

    static final UUID ORG_A = UUID.randomUUID();
    static final UUID ORG_B = UUID.randomUUID();
    static final int ROWS_OF_A = 137;
    static String adminA;
    static String adminB;
    static UUID conflictOfB;

    @BeforeAll
    static void seed() throws Exception {
        String platform = APP.token(Role.PLATFORM, null);
        adminA = APP.token(Role.ORG_ADMIN, ORG_A);
        adminB = APP.token(Role.ORG_ADMIN, ORG_B);
        // Batches share one insert timestamp, so paging must break ties on the id.
        for (int start = 0; start < ROWS_OF_A; start += 50) {
            List<String> reports = new ArrayList<>();
            for (int i = start; i < Math.min(start + 50, ROWS_OF_A); i++) {
                reports.add(report(ORG_A, "a-" + i));
            }
            assertThat(APP.post(platform, "/v1/conflicts", batch(reports.toArray(String[]::new))).statusCode())
                    .isEqualTo(200);
        }
        HttpResponse<String> b = APP.post(platform, "/v1/conflicts", report(ORG_B, "ORG-B-SECRET-KEY", "ORG-B-SECRET.target"));
        conflictOfB = UUID.fromString(JSON.readTree(b.body()).get("id").asText());
    }

    @Test
    void missingOrUnknownTokenIs401() {
        assertThat(APP.get(null, "/v1/conflicts").statusCode()).isEqualTo(401);
        assertThat(APP.get("msk_not-a-real-token", "/v1/conflicts").statusCode()).isEqualTo(401);
        assertThat(APP.get("garbage", "/v1/conflicts").statusCode()).isEqualTo(401);
        HttpResponse<String> post = APP.post(null, "/v1/conflicts", report(ORG_A, "x"));
        assertThat(post.statusCode()).isEqualTo(401);
        assertThat(post.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
    }

    @Test
    void wrongRoleIs403() {
        assertThat(APP.get(APP.token(Role.INGEST, ORG_A), "/v1/conflicts").statusCode()).isEqualTo(403);
        assertThat(APP.get(APP.token(Role.SIEM, ORG_A), "/v1/conflicts/" + conflictOfB).statusCode()).isEqualTo(403);
        assertThat(APP.get(APP.token(Role.PLATFORM, null), "/v1/conflicts").statusCode()).isEqualTo(403);
        assertThat(APP.post(adminA, "/v1/conflicts", report(ORG_A, "by-admin")).statusCode()).isEqualTo(403);
        assertThat(APP.post(APP.token(Role.SIEM, ORG_A), "/v1/conflicts", report(ORG_A, "by-siem")).statusCode())
                .isEqualTo(403);
    }

    @Test
    void a403NamesTheRolesTheEndpointIsForAndTheTokensOwn() {
        var listed = APP.get(APP.token(Role.INGEST, ORG_A), "/v1/conflicts");
        assertThat(listed.statusCode()).isEqualTo(403);
        assertThat(Seed.parse(listed.body()).get("message").asText())
                .isEqualTo("this endpoint is for the org_admin and org_viewer roles; your token's role is ingest");

        var reported = APP.post(adminA, "/v1/conflicts", report(ORG_A, "named-roles"));
        assertThat(reported.statusCode()).isEqualTo(403);
        assertThat(Seed.parse(reported.body()).get("code").asInt()).isEqualTo(403);
        assertThat(Seed.parse(reported.body()).get("message").asText())
                .isEqualTo("this endpoint is for the ingest and platform roles; your token's role is org_admin");
    }

    /**
     * Revocation and expiry bite on a running replica without a restart: within the token cache's TTL
     * ({@code auth.tokenCacheTtl}, 5 s) for a revocation, on time for an expiry.
     */
    @Test
    void aRevokedTokenIs401WithinTheCacheTtl() throws Exception {
        String token = APP.token(Role.ORG_ADMIN, ORG_A);
        assertThat(APP.get(token, "/v1/conflicts?limit=1").statusCode()).isEqualTo(200);
        APP.database().jdbi().useHandle(h -> h.createUpdate(
                "UPDATE api_tokens SET revoked_at = now() WHERE token_sha256 = :hash").bind("hash", sha256(token)).execute());
        assertThat(secondsUntil401(token)).isLessThan(EXT.getConfiguration().getAuth().getTokenCacheTtl()
                .toSeconds() + 2.0);
    }

    @Test
    void anExpiredTokenIs401() throws Exception {
        String token = APP.token(Role.ORG_ADMIN, ORG_A);
        APP.database().jdbi().useHandle(h -> h.createUpdate(
                "UPDATE api_tokens SET expires_at = now() + interval '2 seconds' WHERE token_sha256 = :hash")
                .bind("hash", sha256(token)).execute());
        assertThat(APP.get(token, "/v1/conflicts?limit=1").statusCode()).isEqualTo(200);
        assertThat(secondsUntil401(token)).isLessThan(4.0);
    }

    private static double secondsUntil401(String token) {
        long start = System.nanoTime();
        Wait.until("the expired token refused with 401", Duration.ofSeconds(20),
                () -> APP.get(token, "/v1/conflicts?limit=1").statusCode() == 401);
        return (System.nanoTime() - start) / 1e9;
    }

    /** Only the Authorization header carries a token: in a URL it would be logged in clear. */
    @Test
    void aTokenOnlyCountsInTheAuthorizationHeader() {
        assertThat(APP.get(null, "/v1/conflicts?access_token=" + adminA).statusCode()).isEqualTo(401);
        String path = "/v1/conflicts/" + conflictOfB;
        int port = EXT.getLocalPort();
        assertThat(OneConnection.statuses(port,
                OneConnection.get(path, "Bearer " + adminB + "\r\nAuthorization: Bearer " + adminA),
                OneConnection.get(path, "bearer " + adminB))).containsExactly(401, 200);
    }

    /**
     * On a kept-alive connection a token that differs from the one before it only in letter case is another
     * token: it must not be read as the earlier one (which would let it in), nor the earlier one as it.
     */
    @Test
    void aTokenIsReadExactlyAsSentOnAKeptAliveConnection() {
        String path = "/v1/conflicts/" + conflictOfB;
        String real = APP.token(Role.ORG_ADMIN, ORG_B);
        String upper = real.toUpperCase(java.util.Locale.ROOT);
        int port = EXT.getLocalPort();
        assertThat(OneConnection.statuses(port, OneConnection.get(path, "Bearer " + real),
                OneConnection.get(path, "Bearer " + upper))).containsExactly(200, 401);
        assertThat(OneConnection.statuses(port, OneConnection.get(path, "Bearer " + upper),
                OneConnection.get(path, "Bearer " + real))).containsExactly(401, 200);
    }

    @Test
    void tokensAreStoredOnlyAsHashes() {
        String token = APP.token(Role.SIEM, ORG_A);
        List<Map<String, Object>> rows = APP.database().jdbi().withHandle(h ->
                h.createQuery("SELECT * FROM api_tokens").mapToMap().list());
        assertThat(rows).isNotEmpty();
        for (Map<String, Object> row : rows) {
            for (Object value : row.values()) {
                String text = value instanceof byte[] bytes ? new String(bytes, StandardCharsets.ISO_8859_1) : String.valueOf(value);
                assertThat(text).doesNotContain(token).doesNotContain(token.substring(4, 20));
            }
        }
        long matching = APP.database().jdbi().withHandle(h -> h.createQuery(
                "SELECT count(*) FROM api_tokens WHERE token_sha256 = :hash").bind("hash", sha256(token))
                .mapTo(Long.class).one());
        assertThat(matching).isEqualTo(1);
    }

    @Test
    void anAdminListsOnlyItsOwnOrg() throws Exception {
        HttpResponse<String> page = APP.get(adminA, "/v1/conflicts?limit=200");
        assertThat(page.statusCode()).isEqualTo(200);
        JsonNode conflicts = JSON.readTree(page.body()).get("conflicts");
        assertThat(conflicts).hasSize(ROWS_OF_A);
        assertThat(conflicts.findValuesAsText("org_id")).containsOnly(ORG_A.toString());
        assertThat(page.body()).doesNotContain("ORG-B-SECRET").doesNotContain(ORG_B.toString());
    }

    @Test
    void anotherOrgsConflictIs404ExactlyLikeAMissingOne() {
        HttpResponse<String> other = APP.get(adminA, "/v1/conflicts/" + conflictOfB);
        HttpResponse<String> missing = APP.get(adminA, "/v1/conflicts/" + UUID.randomUUID());
        assertThat(other.statusCode()).isEqualTo(404);
        assertThat(other.body()).isEqualTo(missing.body()).doesNotContain("ORG-B-SECRET");
        assertThat(missing.statusCode()).isEqualTo(404);

        HttpResponse<String> own = APP.get(adminB, "/v1/conflicts/" + conflictOfB);
        assertThat(own.statusCode()).isEqualTo(200);
        assertThat(own.body()).contains("ORG-B-SECRET-KEY").contains("\"state\":\"pending\"")
                .contains("\"detected_at\":\"2026-11-20T10:15:00Z\"")
                .containsPattern("\"received_at\":\"\\d{4}-\\d\\d-\\d\\dT[^\"]+Z\"");
    }

    @Test
    void aMalformedIdIs400() throws Exception {
        HttpResponse<String> response = APP.get(adminA, "/v1/conflicts/not-a-uuid");
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(response.body()).get("message").asText()).contains("UUID");
    }

    @Test
    void pagingReturnsEveryRowExactlyOnceNewestFirst() throws Exception {
        Set<String> seen = new HashSet<>();
        List<String> receivedOrder = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            HttpResponse<String> response = APP.get(adminA, "/v1/conflicts?limit=10" + (cursor == null ? "" : "&cursor=" + cursor));
            assertThat(response.statusCode()).isEqualTo(200);
            JsonNode body = JSON.readTree(response.body());
            for (JsonNode conflict : body.get("conflicts")) {
                assertThat(seen.add(conflict.get("id").asText())).as("seen once: %s", conflict.get("id")).isTrue();
                receivedOrder.add(conflict.get("received_at").asText());
            }
            cursor = body.get("next_cursor").isNull() ? null : body.get("next_cursor").asText();
            pages++;
        } while (cursor != null);
        assertThat(seen).hasSize(ROWS_OF_A);
        assertThat(pages).isEqualTo(14);
        List<String> sorted = new ArrayList<>(receivedOrder);
        sorted.sort(java.util.Comparator.reverseOrder());
        assertThat(receivedOrder).isEqualTo(sorted);
    }

    @Test
    void badListParametersAre400WithAMessage() throws Exception {
        for (String query : List.of("limit=0", "limit=201", "limit=ten", "cursor=%25%25", "cursor=!!", "cursor=bm90LWEtY3Vyc29y",
                "inbox_status=closed", "synthesis_state=finished")) {
            HttpResponse<String> response = APP.get(adminA, "/v1/conflicts?" + query);
            assertThat(response.statusCode()).as(query).isEqualTo(400);
            assertThat(JSON.readTree(response.body()).get("message").asText()).as(query).isNotBlank();
        }
    }

    @Test
    void filtersNarrowTheList() throws Exception {
        JsonNode pending = JSON.readTree(APP.get(adminA, "/v1/conflicts?limit=200&synthesis_state=pending&inbox_status=open").body());
        assertThat(pending.get("conflicts")).hasSize(ROWS_OF_A);
        JsonNode done = JSON.readTree(APP.get(adminA, "/v1/conflicts?synthesis_state=done").body());
        assertThat(done.get("conflicts")).isEmpty();
        assertThat(done.get("next_cursor").isNull()).isTrue();
    }

    private static byte[] sha256(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
