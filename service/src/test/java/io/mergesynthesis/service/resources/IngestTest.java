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
import io.mergesynthesis.service.testing.TestApp;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Flow;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(DropwizardExtensionsSupport.class)
class IngestTest {

    static final TestApp APP = TestApp.apiOnly();
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();
    static final ObjectMapper JSON = new ObjectMapper();
    static final ExecutorService THREADS = Executors.newFixedThreadPool(8);

    UUID org;
    String ingest;

    @BeforeEach
    void newOrg() {
        org = UUID.randomUUID();
        ingest = APP.token(Role.INGEST, org);
    }

    @AfterAll
    static void stopThreads() {
        THREADS.shutdownNow();
    }

    @Test
    void aRepeatReturnsTheExistingIdAndStoresNothingNew() throws Exception {
        HttpResponse<String> first = APP.post(ingest, "/v1/conflicts", report(org, "same-key"));
        HttpResponse<String> again = APP.post(ingest, "/v1/conflicts", report(org, "same-key"));

        assertThat(first.statusCode()).isEqualTo(201);
        String id = idOf(first);
        assertThat(first.headers().firstValue("Location")).hasValueSatisfying(l -> assertThat(l).endsWith(id));
        assertThat(JSON.readTree(first.body()).get("created").asBoolean()).isTrue();
        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(again.body()).get("created").asBoolean()).isFalse();
        assertThat(idOf(again)).isEqualTo(idOf(first));
        assertThat(rows()).isEqualTo(1);
        assertThat(events("conflict_detected")).isEqualTo(1);
    }

    @Test
    void twoConcurrentRequestsWithTheSameKeyStoreOneRowAndGetTheSameId() throws Exception {
        for (int round = 0; round < 20; round++) {
            String key = "race-" + round;
            CyclicBarrier start = new CyclicBarrier(2);
            List<Future<HttpResponse<String>>> calls = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                calls.add(THREADS.submit(() -> {
                    start.await();
                    return APP.post(ingest, "/v1/conflicts", report(org, key));
                }));
            }
            HttpResponse<String> a = calls.get(0).get();
            HttpResponse<String> b = calls.get(1).get();
            assertThat(List.of(a.statusCode(), b.statusCode())).containsExactlyInAnyOrder(201, 200);
            assertThat(idOf(a)).isEqualTo(idOf(b));
        }
        assertThat(rows()).isEqualTo(20);
        assertThat(events("conflict_detected")).isEqualTo(20);
    }

    @Test
    void aBatchStoresEveryItemAndReportsWhichAlreadyExisted() throws Exception {
        APP.post(ingest, "/v1/conflicts", report(org, "k-1"));
        HttpResponse<String> response = APP.post(ingest, "/v1/conflicts",
                batch(report(org, "k-1"), report(org, "k-2"), report(org, "k-3")));

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.get("created").asInt()).isEqualTo(2);
        assertThat(body.get("existing").asInt()).isEqualTo(1);
        assertThat(body.get("results")).hasSize(3);
        assertThat(body.get("results").get(0).get("created").asBoolean()).isFalse();
        assertThat(rows()).isEqualTo(3);
    }

    @Test
    void aBatchWithOneInvalidItemStoresNothingAndNamesEachBadField() throws Exception {
        String broken = report(org, "k-bad").replace("\"tool_call\"", "\"fly\"").replace("\"deny\"", "\"maybe\"");
        HttpResponse<String> response = APP.post(ingest, "/v1/conflicts",
                batch(report(org, "k-good"), broken));

        assertThat(response.statusCode()).isEqualTo(422);
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.get("message").asText()).contains("nothing was stored");
        assertThat(body.get("errors").findValuesAsText("field"))
                .containsExactlyInAnyOrder("conflicts[1].action", "conflicts[1].rules[0].effect");
        assertThat(body.get("errors").toString()).contains("tool_call, data_export, knowledge_query");
        assertThat(rows()).isZero();
        assertThat(events("conflict_detected")).isZero();
    }

    @Test
    void missingAndInvalidFieldsAre422WithEachFieldNamed() throws Exception {
        String body = """
                {"org_id": "%s", "action": "tool_call", "target": "  ",
                 "rules": [{"policy_id": "p1", "scope": "member", "effect": "deny", "target": "x"}],
                 "winner_policy_id": "p9", "detected_at": "yesterday", "colour": "blue"}""".formatted(org);
        HttpResponse<String> response = APP.post(ingest, "/v1/conflicts", body);

        assertThat(response.statusCode()).isEqualTo(422);
        assertThat(JSON.readTree(response.body()).get("errors").findValuesAsText("field")).containsExactlyInAnyOrder(
                "dedup_key", "target", "rules[0].scope_id", "winner_policy_id", "detected_at", "colour");
        assertThat(rows()).isZero();
    }

    @Test
    void malformedJsonIs400() throws Exception {
        HttpResponse<String> response = APP.post(ingest, "/v1/conflicts", "{\"org_id\": ");
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(response.body()).get("message").asText())
                .startsWith("request body is not valid JSON at line 1");
        assertThat(rows()).isZero();
    }

    /** Values PostgreSQL would refuse or silently change are a 422 naming the field, and nothing is stored. */
    @Test
    void valuesTheDatabaseCannotKeepExactlyAre422() throws Exception {
        // An unpaired surrogate has no UTF-8 form; the driver stored it as "?", so the first two were one key.
        for (String key : List.of("k\\ud800z", "k\\udbffz", "k\\udc00")) {
            HttpResponse<String> response = APP.post(ingest, "/v1/conflicts", report(org, key));
            assertThat(response.statusCode()).as(response.body()).isEqualTo(422);
            assertThat(response.body()).contains("\"field\":\"dedup_key\"").contains("unpaired surrogate");
        }
        // Years timestamptz cannot hold answered 500; years before 1970 are no detection time either.
        for (String at : List.of("+999999-01-01T00:00:00Z", "-999999-01-01T00:00:00Z", "1969-12-31T23:59:59Z")) {
            HttpResponse<String> response = APP.post(ingest, "/v1/conflicts",
                    report(org, "k-at").replace("2026-11-20T10:15:00Z", at));
            assertThat(response.statusCode()).as(response.body()).isEqualTo(422);
            assertThat(response.body()).contains("\"field\":\"detected_at\"");
        }
        assertThat(rows()).isZero();
        // A surrogate pair is an ordinary character.
        HttpResponse<String> emoji = APP.post(ingest, "/v1/conflicts", report(org, "k\\ud83d\\ude00"));
        assertThat(emoji.statusCode()).as(emoji.body()).isEqualTo(201);
        assertThat(JSON.readTree(emoji.body()).get("dedup_key").asText()).isEqualTo("k\ud83d\ude00");
    }

    /**
     * Bodies that fail while being read are the client's fault: each answered 500 and logged an ERROR before
     * (the body was read ahead of authentication, and read failures were not mapped).
     */
    @Test
    void anUnreadableBodyIs400AndStoresNothing() throws Exception {
        String valid = report(org, "k-unreadable");
        HttpResponse<String> notGzip = APP.send(HttpRequest.newBuilder(APP.uri("/v1/conflicts"))
                .header("Authorization", "Bearer " + ingest).header("Content-Type", "application/json")
                .header("Content-Encoding", "gzip").POST(HttpRequest.BodyPublishers.ofString(valid)).build());
        assertThat(notGzip.statusCode()).as(notGzip.body()).isEqualTo(400);
        assertThat(notGzip.body()).contains("gzip");
        HttpResponse<String> notGzipNorToken = APP.send(HttpRequest.newBuilder(APP.uri("/v1/conflicts"))
                .header("Authorization", "Bearer msk_forged").header("Content-Type", "application/json")
                .header("Content-Encoding", "gzip").POST(HttpRequest.BodyPublishers.ofString(valid)).build());
        assertThat(notGzipNorToken.statusCode()).isEqualTo(401);

        byte[] brokenUtf32 = {0, 0, 0, '{', 0, 0, 0, '"', 0, (byte) 0xD8, 0, 0};
        HttpResponse<String> notUnicode = APP.send(HttpRequest.newBuilder(APP.uri("/v1/conflicts"))
                .header("Authorization", "Bearer " + ingest).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(brokenUtf32)).build());
        assertThat(notUnicode.statusCode()).as(notUnicode.body()).isEqualTo(400);
        assertThat(notUnicode.body()).contains("UTF-32");

        HttpResponse<String> deep = APP.post(ingest, "/v1/conflicts", "[".repeat(5000) + "]".repeat(5000));
        assertThat(deep.statusCode()).isEqualTo(400);
        assertThat(deep.body()).contains("nesting depth");

        String head = "POST /v1/conflicts HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + ingest
                + "\r\nContent-Type: application/json\r\nConnection: close\r\n";
        String cutShort = OneConnection.exchange(EXT.getLocalPort(),
                (head + "Content-Length: 5000\r\n\r\n" + valid.substring(0, 40)).getBytes(StandardCharsets.UTF_8));
        assertThat(cutShort).startsWith("HTTP/1.1 400").contains("\"message\"");
        String badChunk = OneConnection.exchange(EXT.getLocalPort(),
                (head + "Transfer-Encoding: chunked\r\n\r\nzz\r\n" + valid + "\r\n0\r\n\r\n").getBytes(StandardCharsets.UTF_8));
        assertThat(badChunk).startsWith("HTTP/1.1 400").contains("\"message\"");
        // JAX-RS reads Content-Length as an int; a longer one answered 500 instead of 413.
        String tooLong = OneConnection.exchange(EXT.getLocalPort(),
                (head + "Content-Length: 9223372036854775807\r\n\r\n{}").getBytes(StandardCharsets.UTF_8));
        assertThat(tooLong).startsWith("HTTP/1.1 413");
        assertThat(rows()).isZero();
    }

    /**
     * Jetty closes a connection whose request body it did not read rather than read it, but after an answer is
     * sent it cannot say so: the answer must, or a client reusing the connection loses its next request.
     */
    @Test
    void anAnswerGivenBeforeTheBodyWasReadClosesTheConnection() {
        String body = report(org, "k-" + "x".repeat(190), "y".repeat(200)).repeat(1000);
        String forged = "POST /v1/conflicts HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer msk_forged\r\n"
                + "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
        String refused = OneConnection.exchange(EXT.getLocalPort(), forged.getBytes(StandardCharsets.UTF_8));
        assertThat(refused).startsWith("HTTP/1.1 401");
        assertThat(head(refused)).containsIgnoringCase("Connection: close");

        String valid = report(org, "k-read-whole");
        String accepted = OneConnection.exchange(EXT.getLocalPort(), ("POST /v1/conflicts HTTP/1.1\r\nHost: localhost\r\n"
                + "Authorization: Bearer " + ingest + "\r\nContent-Type: application/json\r\nContent-Length: "
                + valid.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + valid).getBytes(StandardCharsets.UTF_8));
        assertThat(accepted).startsWith("HTTP/1.1 201");
        assertThat(head(accepted)).doesNotContainIgnoringCase("Connection: close");
    }

    /**
     * A client still uploading when the 413 comes and the connection closes under it often loses the answer:
     * a body not far over the limit is read to its end first, so the connection even stays usable. A body
     * declared absurdly large is not worth the reading.
     */
    @Test
    void anOversizeBodyIsReadToItsEndBeforeThe413() {
        String huge = report(org, "k-huge", "x".repeat(3 * 1024 * 1024));
        String head = "POST /v1/conflicts HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + ingest
                + "\r\nContent-Type: application/json\r\n";
        String drained = OneConnection.exchange(EXT.getLocalPort(),
                (head + "Content-Length: " + huge.length() + "\r\n\r\n" + huge).getBytes(StandardCharsets.UTF_8));
        assertThat(drained).startsWith("HTTP/1.1 413");
        assertThat(head(drained)).doesNotContainIgnoringCase("Connection: close");

        String absurd = OneConnection.exchange(EXT.getLocalPort(),
                (head + "Content-Length: 99999999999\r\n\r\n{}").getBytes(StandardCharsets.UTF_8));
        assertThat(absurd).startsWith("HTTP/1.1 413");
        assertThat(head(absurd)).containsIgnoringCase("Connection: close");
    }

    private static String head(String answer) {
        return answer.substring(0, answer.indexOf("\r\n\r\n"));
    }

    @Test
    void aBodyThatIsNotAConflictIs422() throws Exception {
        HttpResponse<String> response = APP.post(ingest, "/v1/conflicts", "[1, 2, 3]");
        assertThat(response.statusCode()).isEqualTo(422);
        assertThat(JSON.readTree(response.body()).get("errors").get(0).get("field").asText()).isEqualTo("(body)");
    }

    @Test
    void anOversizeBodyIs413WhetherDeclaredOrStreamed() throws Exception {
        String huge = report(org, "k-huge", "x".repeat(3 * 1024 * 1024));
        HttpResponse<String> declared = APP.post(ingest, "/v1/conflicts", huge);
        assertThat(declared.statusCode()).isEqualTo(413);
        assertThat(declared.body()).contains("larger than");

        // Without a Content-Length (chunked), the limit is enforced while reading.
        HttpResponse<String> streamed = APP.send(HttpRequest.newBuilder(APP.uri("/v1/conflicts"))
                .header("Authorization", "Bearer " + ingest)
                .header("Content-Type", "application/json")
                .POST(chunked(huge))
                .build());
        assertThat(streamed.statusCode()).isEqualTo(413);
        assertThat(rows()).isZero();
    }

    @Test
    void a413SaysTheLimitOfTheEndpointItWasHitOn() throws Exception {
        HttpResponse<String> ingested = APP.post(ingest, "/v1/conflicts",
                report(org, "k-huge", "x".repeat(3 * 1024 * 1024)));
        assertThat(ingested.statusCode()).isEqualTo(413);
        assertThat(JSON.readTree(ingested.body()).get("message").asText()).isEqualTo("request body is larger than "
                + "2 MiB (2097152 bytes), the limit for POST /v1/conflicts: nothing was stored; send a smaller batch "
                + "(at most 500 conflicts in a body of at most that size)");

        UUID id = UUID.randomUUID();
        HttpResponse<String> resolved = APP.post(APP.token(Role.ORG_ADMIN, org), "/v1/conflicts/" + id + "/resolve",
                "{\"resolution\": \"manual\", \"note\": \"" + "n".repeat(3 * 1024 * 1024) + "\"}");
        assertThat(resolved.statusCode()).isEqualTo(413);
        assertThat(JSON.readTree(resolved.body()).get("message").asText()).isEqualTo("request body is larger than "
                + "2 MiB (2097152 bytes), the limit for POST /v1/conflicts/" + id + "/resolve: nothing was stored");
    }

    @Test
    void aBatchOverTheMaximumIsRefusedWhole() throws Exception {
        List<String> reports = new ArrayList<>();
        for (int i = 0; i < 501; i++) {
            reports.add(report(org, "k-" + i));
        }
        HttpResponse<String> response = APP.post(ingest, "/v1/conflicts", batch(reports.toArray(String[]::new)));
        assertThat(response.statusCode()).isEqualTo(422);
        assertThat(response.body()).contains("at most 500");
        assertThat(rows()).isZero();
    }

    @Test
    void anIngestTokenCannotWriteAnotherOrgAndNothingIsStored() throws Exception {
        UUID other = UUID.randomUUID();
        HttpResponse<String> response = APP.post(ingest, "/v1/conflicts",
                batch(report(org, "mine"), report(other, "theirs")));
        assertThat(response.statusCode()).isEqualTo(403);
        assertThat(response.body()).contains("conflicts[1].org_id");
        assertThat(rows()).isZero();
        assertThat(countIn(other)).isZero();
    }

    @Test
    void anIngestTokenMayLeaveOutItsOwnOrg() throws Exception {
        String withoutOrg = report(org, "implicit").replace("\"org_id\": \"" + org + "\", ", "");
        HttpResponse<String> response = APP.post(ingest, "/v1/conflicts", withoutOrg);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
        assertThat(rows()).isEqualTo(1);
    }

    @Test
    void aPlatformTokenWritesAnyOrgButMustNameIt() throws Exception {
        String platform = APP.token(Role.PLATFORM, null);
        UUID other = UUID.randomUUID();
        HttpResponse<String> response = APP.post(platform, "/v1/conflicts",
                batch(report(org, "p-1"), report(other, "p-2")));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(rows()).isEqualTo(1);
        assertThat(countIn(other)).isEqualTo(1);

        String withoutOrg = report(org, "p-3").replace("\"org_id\": \"" + org + "\", ", "");
        HttpResponse<String> missing = APP.post(platform, "/v1/conflicts", withoutOrg);
        assertThat(missing.statusCode()).isEqualTo(422);
        assertThat(missing.body()).contains("\"field\":\"org_id\"");
    }

    private static HttpRequest.BodyPublisher chunked(String body) {
        HttpRequest.BodyPublisher inner = HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8);
        return new HttpRequest.BodyPublisher() {
            @Override
            public long contentLength() {
                return -1;
            }

            @Override
            public void subscribe(Flow.Subscriber<? super java.nio.ByteBuffer> subscriber) {
                inner.subscribe(subscriber);
            }
        };
    }

    private String idOf(HttpResponse<String> response) throws Exception {
        return JSON.readTree(response.body()).get("id").asText();
    }

    private long rows() {
        return countIn(org);
    }

    private long countIn(UUID orgId) {
        return APP.database().transactions().inOrg(orgId, h ->
                h.createQuery("SELECT count(*) FROM policy_conflicts").mapTo(Long.class).one());
    }

    private long events(String type) {
        return APP.database().transactions().inOrg(org, h ->
                h.createQuery("SELECT count(*) FROM conflict_events WHERE event_type = :t").bind("t", type)
                        .mapTo(Long.class).one());
    }
}
