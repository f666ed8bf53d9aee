package io.mergesynthesis.service.resources;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.TestApp;
import io.mergesynthesis.testsupport.Wait;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An answer given after the body's reading began but before its end (a JSON limit hit in the first kilobytes
 * of a large body) must reach a client that is still sending. Closing a connection with unread bytes makes the
 * kernel send a reset, and a reset discards the answer on the client's side before the client reads it.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class EarlyAnswerTest {

    static final TestApp APP = TestApp.apiOnly();
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();
    static String ingest;

    @BeforeAll
    static void token() {
        ingest = APP.token(Role.INGEST, UUID.randomUUID());
    }

    /** Too deep in its first bytes, then 1.5 MB more: under the body limit, so nothing but the JSON limit stops it. */
    private static byte[] deepThenLong() {
        byte[] body = new byte[1_500_000];
        java.util.Arrays.fill(body, (byte) ' ');
        byte[] deep = "[".repeat(5000).getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(deep, 0, body, 0, deep.length);
        return body;
    }

    @Test
    void aJsonLimitHitEarlyInALargeBodyIsAnsweredNotReset() throws Exception {
        byte[] body = deepThenLong();
        byte[] head = ("POST /v1/conflicts HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + ingest
                + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length
                + "\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        List<String> lost = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            String answer = sendAllThenRead(head, body);
            if (!answer.startsWith("HTTP/1.1 400") || !answer.contains("nesting depth")) {
                lost.add(answer.isEmpty() ? "(nothing)" : answer.substring(0, Math.min(200, answer.length())));
            }
        }
        assertThat(lost).as("answers lost of 5").isEmpty();
    }

    @Test
    void theSameForAChunkedBody() throws Exception {
        byte[] body = deepThenLong();
        ByteArrayOutputStream chunked = new ByteArrayOutputStream();
        for (int at = 0; at < body.length; at += 8192) {
            int n = Math.min(8192, body.length - at);
            chunked.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            chunked.write(body, at, n);
            chunked.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        chunked.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        byte[] head = ("POST /v1/conflicts HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + ingest
                + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        List<String> lost = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            String answer = sendAllThenRead(head, chunked.toByteArray());
            if (!answer.startsWith("HTTP/1.1 400") || !answer.contains("nesting depth")) {
                lost.add(answer.isEmpty() ? "(nothing)" : answer.substring(0, Math.min(200, answer.length())));
            }
        }
        assertThat(lost).as("answers lost of 5").isEmpty();
    }

    /**
     * The rest of the body is read rather than left on the connection: the answer does not close it, and the
     * next request on it is served. Without the drain the connection closes with the body unread.
     */
    @Test
    void aBodyDrainedAfterAnEarlyAnswerLeavesTheConnectionUsable() {
        String body = new String(deepThenLong(), StandardCharsets.US_ASCII);
        String first = "POST /v1/conflicts HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + ingest
                + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
        // statuses() adds a last request of its own and lists the answers before it: that one was answered too.
        assertThat(io.mergesynthesis.service.testing.OneConnection.statuses(EXT.getLocalPort(), first))
                .containsExactly(400);
    }

    /**
     * A client that sends the head and a little of a long body, then stops: the drain gives up within its time
     * bound and the answer still comes, rather than the server holding a thread for as long as the client waits.
     */
    @Test
    void aClientThatStopsSendingMidBodyStillGetsTheAnswerSoon() throws Exception {
        byte[] head = ("POST /v1/conflicts HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + ingest
                + "\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        try (Socket socket = new Socket("127.0.0.1", EXT.getLocalPort())) {
            socket.setSoTimeout(20_000);
            OutputStream out = socket.getOutputStream();
            out.write(head);
            out.write("[".repeat(5000).getBytes(StandardCharsets.US_ASCII));
            out.flush();
            long start = System.nanoTime();
            String answer = readAll(socket.getInputStream());
            double seconds = (System.nanoTime() - start) / 1e9;
            assertThat(answer).startsWith("HTTP/1.1 400").contains("nesting depth");
            assertThat(seconds).isLessThan(10.0);
        }
    }

    /**
     * Sends the head and the first 16 KB, waits for the server to have read them (and answered), then sends the
     * rest, as a client on a real network still sends while the answer travels; then reads the answer.
     */
    private static String sendAllThenRead(byte[] head, byte[] body) {
        try (Socket socket = new Socket("127.0.0.1", EXT.getLocalPort())) {
            socket.setSoTimeout(20_000);
            OutputStream out = socket.getOutputStream();
            try {
                out.write(head);
                int first = Math.min(16 * 1024, body.length);
                out.write(body, 0, first);
                out.flush();
                InputStream answer = socket.getInputStream();
                Wait.until("the server's answer to the first 16 KB", Duration.ofSeconds(20),
                        () -> answer.available() > 0);
                for (int at = first; at < body.length; at += 64 * 1024) {
                    out.write(body, at, Math.min(64 * 1024, body.length - at));
                    out.flush();
                    // The rest trickles in as over a real network while the answer travels back: the pause is
                    // the client's own pacing, not a wait for the server, so there is nothing to wait on instead.
                    Thread.sleep(2);
                }
                socket.shutdownOutput();
            } catch (IOException e) {
                // The server stopped reading; its answer may still be there to read.
            }
            return readAll(socket.getInputStream());
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String readAll(InputStream in) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buffer = new byte[16 * 1024];
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                all.write(buffer, 0, n);
            }
        } catch (IOException e) {
            // A reset: whatever arrived before it is all there is.
        }
        return all.toString(StandardCharsets.ISO_8859_1);
    }
}
