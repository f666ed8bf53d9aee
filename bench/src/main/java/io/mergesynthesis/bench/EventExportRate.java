package io.mergesynthesis.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import io.mergesynthesis.harness.Replica;

/**
 * A SIEM pulling the whole event stream: {@code GET /v1/events?format=ndjson}, read as a stream line by line,
 * page after page, following the cursor until a page comes back empty.
 *
 * <p>The export's wire details in one place: the next cursor arrives in the {@value #CURSOR_HEADER} response
 * header and again as the last NDJSON line, an object with the single field {@value #TRAILER_FIELD}.
 */
final class EventExportRate {

    static final String CURSOR_HEADER = "Next-Cursor";
    static final String TRAILER_FIELD = "next_cursor";
    static final int PAGE_LIMIT = 10_000;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** The export is not in the product yet (or not for this token). */
    static final class Unavailable extends Exception {
        Unavailable(String message) {
            super(message);
        }
    }

    /** What one full read of the stream did. */
    record Exported(long events, double seconds, int pages) {
        double perSecond() {
            return events / seconds;
        }
    }

    /** Answers whether {@code GET /v1/events} exists, without reading the stream. */
    void probe(Replica replica, String token) throws IOException, InterruptedException, Unavailable {
        HttpResponse<InputStream> response = get(replica, token, null, null, 1);
        try (InputStream body = response.body()) {
            body.readAllBytes();
        }
        if (response.statusCode() != 200) {
            throw new Unavailable("GET /v1/events answered " + response.statusCode()
                    + " (the event export is not in this build)");
        }
    }

    /**
     * Reads the stream from the start to its end.
     *
     * @param expected events in the table; reading well past it means the cursor is not advancing properly,
     *                 and the read stops with an error instead of running on
     */
    Exported readAll(Replica replica, String token, long expected) throws IOException, InterruptedException {
        return read(replica, token, null, expected, Long.MAX_VALUE);
    }

    /**
     * Reads the stream from the start, of one org ({@code org}) or of every org the token sees (null), until its
     * end or until at least {@code atMost} events have been read, whichever comes first.
     */
    Exported read(Replica replica, String token, java.util.UUID org, long expected, long atMost)
            throws IOException, InterruptedException {
        long events = 0;
        int pages = 0;
        String cursor = null;
        long start = System.nanoTime();
        while (true) {
            HttpResponse<InputStream> response = get(replica, token, org, cursor, PAGE_LIMIT);
            if (response.statusCode() != 200) {
                response.body().close();
                throw new IOException("GET /v1/events answered " + response.statusCode());
            }
            pages++;
            Optional<String> headerCursor = response.headers().firstValue(CURSOR_HEADER);
            long onPage = 0;
            String trailerCursor = null;
            try (BufferedReader lines = new BufferedReader(
                    new InputStreamReader(response.body(), StandardCharsets.UTF_8), 1 << 16)) {
                String line;
                while ((line = lines.readLine()) != null) {
                    if (line.isEmpty()) {
                        continue;
                    }
                    if (line.startsWith("{\"" + TRAILER_FIELD + "\"")) {
                        JsonNode trailer = JSON.readTree(line);
                        if (trailer.size() == 1) {
                            trailerCursor = trailer.get(TRAILER_FIELD).asText();
                            continue;
                        }
                    }
                    onPage++;
                }
            }
            events += onPage;
            if (events > 2 * expected + PAGE_LIMIT) {
                throw new IOException("read " + events + " events from a stream of " + expected
                        + ": the cursor does not seem to advance");
            }
            String next = trailerCursor != null ? trailerCursor : headerCursor.orElse(null);
            if (onPage == 0 || next == null || next.equals(cursor) || events >= atMost) {
                break;
            }
            cursor = next;
        }
        return new Exported(events, (System.nanoTime() - start) / 1e9, pages);
    }

    private HttpResponse<InputStream> get(Replica replica, String token, java.util.UUID org, String cursor, int limit)
            throws IOException, InterruptedException {
        String query = "?format=ndjson&limit=" + limit + (org == null ? "" : "&org_id=" + org)
                + (cursor == null ? "" : "&after=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8));
        HttpRequest request = HttpRequest.newBuilder(replica.api("/v1/events" + query))
                .header("Authorization", "Bearer " + token)
                .timeout(Duration.ofMinutes(5))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofInputStream());
    }
}
