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
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Requests Jetty refuses before the application sees them, sent raw over a socket: each answer is the API's
 * JSON error body, and its message names what was wrong rather than the bare status ("Bad Request").
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class RefusedRequestsTest {

    static final TestApp APP = TestApp.apiOnly();
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();
    static String ingest;
    static String admin;

    @BeforeAll
    static void tokens() {
        UUID org = UUID.randomUUID();
        ingest = APP.token(Role.INGEST, org);
        admin = APP.token(Role.ORG_ADMIN, org);
    }

    /** Request head (without the final blank line) to the status and a part of the message it must get. */
    private static Map<String, Object[]> cases() {
        Map<String, Object[]> cases = new LinkedHashMap<>();
        cases.put("GET /v1/conflicts/%zz HTTP/1.1\r\nHost: x\r\n",
                new Object[] {400, "bad percent-encoding"});
        cases.put("GET /v1/../../etc/passwd HTTP/1.1\r\nHost: x\r\n",
                new Object[] {400, "path cannot be resolved"});
        cases.put("GET /v1/conflicts/a%2fb HTTP/1.1\r\nHost: x\r\n",
                new Object[] {400, "ambiguous uri path separator"});
        cases.put("GET http://[::1 HTTP/1.1\r\nHost: x\r\n",
                new Object[] {400, "malformed request URI"});
        cases.put("GET /v1/conflicts HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n",
                new Object[] {400, "illegal character in the request line or a header"});
        cases.put("GET /v1/conflicts HTTP/1.1\r\nHost: x\r\nX-A: \u0001\r\n",
                new Object[] {400, "illegal character in the request line or a header (Illegal character CNTL=0x1)"});
        cases.put("GET /v1/conflicts HTTP/1.1\r\nHost: x\r\n Folded: x\r\n",
                new Object[] {400, "folded header line"});
        cases.put("GET /v1/conflicts HTTP/1.1\r\nHost: x\r\nHost: y\r\n",
                new Object[] {400, "Duplicate Host"});
        cases.put("POST /v1/conflicts HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n",
                new Object[] {400, "both Transfer-Encoding and Content-Length"});
        cases.put("POST /v1/conflicts HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n",
                new Object[] {400, "Invalid Content-Length"});
        cases.put("POST /v1/conflicts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + "INGEST"
                        + "\r\nContent-Type: application/json; charset=\r\nContent-Length: 2\r\n",
                new Object[] {400, "Content-Type header is not a media type: 'application/json; charset='"});
        cases.put("GET /v1/conflicts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + "ADMIN"
                        + "\r\nContent-Type: /\r\n",
                new Object[] {400, "Content-Type header is not a media type: '/'"});
        cases.put("GET /v1/conflicts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + "ADMIN" + "\r\nAccept: ;;;\r\n",
                new Object[] {400, "Accept header is not a list of media types"});
        cases.put("GET /v1/conflicts?q=" + "q".repeat(100_000) + " HTTP/1.1\r\nHost: x\r\n",
                new Object[] {414, "request line is too long"});
        cases.put("GET /v1/conflicts HTTP/1.1\r\nHost: x\r\nX-Filler: " + "f".repeat(20_000) + "\r\n",
                new Object[] {431, "headers are too large"});
        cases.put("GET /v1/conflicts HTTP/2.0\r\nHost: x\r\n",
                new Object[] {426, "HTTP/1.1"});
        return cases;
    }

    @Test
    void everyRefusalIsTheJsonErrorBodyWithWhatWasWrong() {
        int port = EXT.getLocalPort();
        cases().forEach((head, expected) -> {
            String request = head.replace("Bearer INGEST", "Bearer " + ingest).replace("Bearer ADMIN", "Bearer " + admin)
                    + "Connection: close\r\n\r\n" + (head.contains("Content-Length: 2") ? "{}" : "");
            String answer = OneConnection.exchange(port, request.getBytes(StandardCharsets.ISO_8859_1));
            String shown = head.length() > 100 ? head.substring(0, 100) : head;
            assertThat(answer).as(shown).startsWith("HTTP/1.1 " + expected[0]);
            assertThat(answer.lines().filter(l -> l.regionMatches(true, 0, "Content-Type:", 0, 13)).findFirst())
                    .as(shown).hasValueSatisfying(t -> assertThat(t).contains("application/json"));
            JsonNode body = Seed.parse(answer.substring(answer.indexOf("\r\n\r\n") + 4));
            assertThat(body.get("code").asInt()).as(shown + answer).isEqualTo(expected[0]);
            assertThat(body.get("message").asText()).as(shown).containsIgnoringCase((String) expected[1])
                    .isNotEqualTo("Bad Request");
        });
    }

    @Test
    void aBrokenChunkedBodySaysItsFramingIsBroken() {
        String request = "POST /v1/conflicts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + ingest
                + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                + "2\r\n[[\r\nzz\r\n0\r\n\r\n";
        String answer = OneConnection.exchange(EXT.getLocalPort(), request.getBytes(StandardCharsets.ISO_8859_1));
        assertThat(answer).startsWith("HTTP/1.1 400");
        JsonNode body = Seed.parse(answer.substring(answer.indexOf("\r\n\r\n") + 4));
        assertThat(body.get("message").asText()).contains("chunked framing is broken", "nothing was stored");
    }
}
