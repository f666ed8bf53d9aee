package io.mergesynthesis.llm;

import com.fasterxml.jackson.databind.JsonNode;
import io.mergesynthesis.llm.ProviderBatches.Failed;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The exchanges the batch clients share: one JSON answer, or an answer of JSON lines read as they arrive. A failure
 * names the method, the path, the status and, when the provider gave one, its error type; never a body, which may
 * quote what was sent, and never a header, which carries the key.
 */
public final class BatchHttp {

    /** What an error type looks like; anything else in its place is not repeated. */
    private static final Pattern ERROR_TYPE = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    private final HttpClient http;

    public BatchHttp(ProviderSettings provider) {
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(provider.getConnectTimeout()).build();
    }

    /** Sends {@code request}; its JSON answer. */
    public JsonNode json(HttpRequest request) throws Failed, InterruptedException {
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new Failed(what(request) + " had no answer: " + e.getClass().getSimpleName(), 0);
        }
        if (response.statusCode() / 100 != 2) {
            throw failed(request, response.statusCode(), response.headers(), errorType(response.body()));
        }
        try {
            return WireJson.MAPPER.readTree(response.body());
        } catch (IOException e) {
            throw new Failed(what(request) + " answered with a body that is not JSON", response.statusCode());
        }
    }

    /**
     * Sends {@code request}; its answer's JSON lines, blank ones skipped, read as they arrive. A line that is not
     * JSON fails the stream with an {@link UncheckedIOException} that does not quote it.
     */
    public Stream<JsonNode> lines(HttpRequest request) throws Failed, InterruptedException {
        HttpResponse<Stream<String>> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofLines());
        } catch (IOException e) {
            throw new Failed(what(request) + " had no answer: " + e.getClass().getSimpleName(), 0);
        }
        if (response.statusCode() / 100 != 2) {
            response.body().close();
            throw failed(request, response.statusCode(), response.headers(), null);
        }
        String what = what(request);
        return response.body().filter(line -> !line.isBlank()).map(line -> {
            try {
                return WireJson.MAPPER.readTree(line);
            } catch (IOException e) {
                // Not chained: the parser's message quotes the line.
                throw new UncheckedIOException(new IOException("a line answered to " + what + " is not JSON"));
            }
        });
    }

    private static Failed failed(HttpRequest request, int status, java.net.http.HttpHeaders headers, String type) {
        Duration retryAfter = status == 429 ? RetryAfter.requested(headers, Instant.now()).orElse(null) : null;
        return new Failed(what(request) + " was answered HTTP " + status + (type == null ? "" : " (" + type + ")"),
                status, retryAfter);
    }

    private static String what(HttpRequest request) {
        return request.method() + " " + request.uri().getPath();
    }

    /** The provider's error type, from either protocol's error body, when it looks like one. */
    static String errorType(String body) {
        try {
            JsonNode json = WireJson.MAPPER.readTree(body);
            if (json == null) {
                return null;
            }
            JsonNode error = json.path("error");
            String type = error.path("type").isTextual() ? error.path("type").asText()
                    : error.path("code").isTextual() ? error.path("code").asText() : null;
            return type != null && ERROR_TYPE.matcher(type).matches() ? type : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
