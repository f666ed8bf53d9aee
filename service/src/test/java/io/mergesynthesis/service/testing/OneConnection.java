package io.mergesynthesis.service.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Several requests over one kept-alive connection, as a proxy or a pooling client sends them. Written by hand
 * because HTTP clients choose their own connections.
 */
public final class OneConnection {

    private static final Pattern STATUS = Pattern.compile("HTTP/1\\.1 (\\d{3}) ");

    private OneConnection() {
    }

    /** A GET of {@code path} with {@code authorization} as the header's value (none if null). */
    public static String get(String path, String authorization) {
        return "GET " + path + " HTTP/1.1\r\nHost: localhost\r\n"
                + (authorization == null ? "" : "Authorization: " + authorization + "\r\n") + "\r\n";
    }

    /**
     * Sends {@code request} exactly as given, then closes the sending side (a body cut short ends there) and
     * returns the whole answer as text.
     */
    public static String exchange(int port, byte[] request) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request);
            socket.shutdownOutput();
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            socket.getInputStream().transferTo(received);
            return received.toString(StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sends the requests one after the other on one connection and returns the status of each answer. */
    public static List<Integer> statuses(int port, String... requests) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            StringBuilder all = new StringBuilder();
            for (String request : requests) {
                all.append(request);
            }
            // The last request closes the connection, so the answers end where the stream does.
            all.append("GET /v1/openapi.yaml HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
            socket.getOutputStream().write(all.toString().getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            InputStream in = socket.getInputStream();
            in.transferTo(received);
            List<Integer> statuses = new ArrayList<>();
            Matcher m = STATUS.matcher(received.toString(StandardCharsets.ISO_8859_1));
            while (m.find()) {
                statuses.add(Integer.parseInt(m.group(1)));
            }
            return statuses.subList(0, statuses.size() - 1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
