package io.mergesynthesis.drills;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 by hand over a socket, for requests that {@code java.net.http} refuses to send: broken request lines,
 * control bytes in header values, contradicting or lying lengths, bodies cut short. The request goes out as the
 * caller wrote it, byte for byte; the answer is read until the server closes the connection (callers send
 * {@code Connection: close}).
 */
final class RawHttp {

    /** A parsed answer. {@code writeFailure} says the server stopped reading before the whole request was sent. */
    record Answer(int status, Map<String, String> headers, byte[] body, String writeFailure) {

        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    /**
     * No answer at all, or one that is not HTTP: what happened, for the drill's report. The three ways of getting
     * nothing are told apart, because each has another cause: a reset (the server closed with request bytes
     * unread, or the connection was refused), the end of the stream before any byte (the server hung up in
     * order), or no answer within the timeout (the server, or the drill's machine, too slow).
     */
    static final class NoAnswer extends IOException {
        NoAnswer(String message, Throwable cause) {
            super(message, cause);
        }

        static String reset(IOException failure, int sent, int length, String writeFailure) {
            return "RESET before any byte of an answer (" + failure + ")" + progress(sent, length, writeFailure);
        }

        static String eof(int sent, int length, String writeFailure) {
            return "EOF before any byte of an answer (the server closed in order without answering)"
                    + progress(sent, length, writeFailure);
        }

        static String timeout(Duration timeout, int sent, int length, String writeFailure) {
            return "TIMEOUT: no byte of an answer within " + timeout.toSeconds() + " s" + progress(sent, length, writeFailure);
        }

        private static String progress(int sent, int length, String writeFailure) {
            return ", " + sent + " of " + length + " request bytes sent"
                    + (writeFailure == null ? " and the sending side half-closed" : ", sending failed: " + writeFailure);
        }
    }

    private RawHttp() {
    }

    /**
     * Sends {@code request}, then half-closes the socket (so a server waiting for more body sees the end) and
     * reads the answer.
     */
    static Answer exchange(int port, byte[] request, Duration timeout) throws NoAnswer {
        int sent = 0;
        String writeFailure = null;
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), (int) Math.min(timeout.toMillis(), 10_000));
            socket.setSoTimeout((int) timeout.toMillis());
            try {
                OutputStream out = socket.getOutputStream();
                // In pieces, so that a server answering early (413) is noticed while the rest is still unsent.
                for (int at = 0; at < request.length; at += 64 * 1024) {
                    int n = Math.min(64 * 1024, request.length - at);
                    out.write(request, at, n);
                    sent += n;
                }
                out.flush();
                socket.shutdownOutput();
            } catch (IOException e) {
                // The server may have answered and closed; what it said is still worth reading.
                writeFailure = e.toString();
            }
            byte[] received = readAll(socket.getInputStream());
            if (received.length == 0) {
                throw new NoAnswer(NoAnswer.eof(sent, request.length, writeFailure), null);
            }
            return parse(received, writeFailure);
        } catch (SocketTimeoutException e) {
            throw new NoAnswer(NoAnswer.timeout(timeout, sent, request.length, writeFailure), e);
        } catch (NoAnswer e) {
            throw e;
        } catch (IOException e) {
            throw new NoAnswer(NoAnswer.reset(e, sent, request.length, writeFailure), e);
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buffer = new byte[16 * 1024];
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                all.write(buffer, 0, n);
            }
        } catch (IOException e) {
            // A reset after a complete answer still leaves the answer; no bytes at all is the caller's failure.
            if (all.size() == 0) {
                throw e;
            }
        }
        return all.toByteArray();
    }

    private static Answer parse(byte[] received, String writeFailure) throws NoAnswer {
        // Interim answers (100 Continue) come before the real one.
        while (received.length > 12 && new String(received, 0, 12, StandardCharsets.ISO_8859_1).matches("HTTP/1\\.\\d 1\\d\\d")) {
            int end = indexOf(received, "\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            if (end < 0) {
                break;
            }
            received = Arrays.copyOfRange(received, end + 4, received.length);
        }
        int headEnd = indexOf(received, "\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        if (headEnd < 0) {
            throw new NoAnswer("answer without a complete head: " + printable(received, 200), null);
        }
        String[] lines = new String(received, 0, headEnd, StandardCharsets.ISO_8859_1).split("\r\n");
        String[] statusLine = lines[0].split(" ", 3);
        if (statusLine.length < 2 || !statusLine[0].startsWith("HTTP/1.")) {
            throw new NoAnswer("not an HTTP status line: " + printable(lines[0].getBytes(StandardCharsets.ISO_8859_1), 200), null);
        }
        int status;
        try {
            status = Integer.parseInt(statusLine[1]);
        } catch (NumberFormatException e) {
            throw new NoAnswer("not an HTTP status: " + lines[0], e);
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.merge(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                        lines[i].substring(colon + 1).trim(), (a, b) -> a + ", " + b);
            }
        }
        byte[] body = Arrays.copyOfRange(received, headEnd + 4, received.length);
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = dechunk(body);
        }
        return new Answer(status, headers, body, writeFailure);
    }

    private static byte[] dechunk(byte[] chunked) throws NoAnswer {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int at = 0;
        while (at < chunked.length) {
            int lineEnd = indexOf(Arrays.copyOfRange(chunked, at, chunked.length), "\r\n".getBytes(StandardCharsets.US_ASCII));
            if (lineEnd < 0) {
                throw new NoAnswer("chunked answer cut short", null);
            }
            String sizeText = new String(chunked, at, lineEnd, StandardCharsets.US_ASCII);
            int size;
            try {
                size = Integer.parseInt(sizeText.split(";", 2)[0].trim(), 16);
            } catch (NumberFormatException e) {
                throw new NoAnswer("bad chunk size in the answer: " + sizeText, e);
            }
            at += lineEnd + 2;
            if (size == 0) {
                break;
            }
            if (at + size > chunked.length) {
                throw new NoAnswer("chunked answer cut short", null);
            }
            out.write(chunked, at, size);
            at += size + 2;
        }
        return out.toByteArray();
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** Bytes for a report line: printable ASCII as is, everything else as \xNN. */
    static String printable(byte[] bytes, int max) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < Math.min(bytes.length, max); i++) {
            int b = bytes[i] & 0xff;
            if (b >= 0x20 && b < 0x7f && b != '\\') {
                out.append((char) b);
            } else {
                out.append(String.format("\\x%02x", b));
            }
        }
        if (bytes.length > max) {
            out.append("...(").append(bytes.length).append(" bytes)");
        }
        return out.toString();
    }
}
