package io.mergesynthesis.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import io.mergesynthesis.harness.Replica;

/**
 * An admin inbox reading its org's conflicts: {@code GET /v1/conflicts} one request at a time, following
 * {@code next_cursor} page by page and starting over at the end, timed from request to fully read body.
 */
final class InboxReads {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int WARM_UP = 50;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** Milliseconds per request over {@code requests} requests, after a few untimed ones. */
    Percentiles measure(Replica replica, String token, int requests) throws IOException, InterruptedException {
        double[] millis = new double[requests];
        String cursor = null;
        for (int i = -WARM_UP; i < requests; i++) {
            String query = cursor == null ? "" : "?cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8);
            HttpRequest request = HttpRequest.newBuilder(replica.api("/v1/conflicts" + query))
                    .header("Authorization", "Bearer " + token)
                    .timeout(Duration.ofSeconds(30))
                    .build();
            long start = System.nanoTime();
            HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
            long elapsed = System.nanoTime() - start;
            if (response.statusCode() != 200) {
                throw new IOException("GET /v1/conflicts answered " + response.statusCode() + ": "
                        + new String(response.body(), StandardCharsets.UTF_8));
            }
            if (i >= 0) {
                millis[i] = elapsed / 1e6;
            }
            JsonNode next = JSON.readTree(response.body()).get("next_cursor");
            cursor = next == null || next.isNull() ? null : next.asText();
        }
        return new Percentiles(millis);
    }
}
