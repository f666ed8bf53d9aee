package io.mergesynthesis.llm.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.llm.ProviderSettings;
import io.mergesynthesis.llm.WireJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Anthropic's Message Batches: create, retrieve, list and read results. Each method is one HTTP exchange and says
 * nothing about what the caller should do with a failure: a create whose answer was lost may still have made a
 * batch, and only the caller's own record (a batch row written before the create) can tell.
 */
public final class AnthropicBatches {

    static final String PATH = "/v1/messages/batches";

    private final ProviderSettings provider;
    private final HttpClient http;

    public AnthropicBatches(ProviderSettings provider) {
        this.provider = provider;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(provider.getConnectTimeout()).build();
    }

    /** One request of a batch: its custom_id and the body a single call would send. */
    public record Request(String customId, ObjectNode params) {
    }

    /** A batch as the provider describes it. */
    public record Batch(String id, String processingStatus, String resultsUrl, Instant createdAt) {

        public boolean ended() {
            return "ended".equals(processingStatus);
        }
    }

    /** One page of the list, newest first; {@code lastId} is where the next page starts after. */
    public record Page(List<Batch> batches, boolean hasMore, String lastId) {
    }

    /** The provider could not be asked, or answered other than 2xx. */
    public static final class Failed extends Exception {
        private final int status;

        public Failed(String message, int status) {
            super(message);
            this.status = status;
        }

        /** The HTTP status, or 0 when there was no answer. */
        public int status() {
            return status;
        }
    }

    /** Creates a batch of {@code requests}; the provider's batch. */
    public Batch create(List<Request> requests) throws Failed, InterruptedException {
        ObjectNode body = WireJson.MAPPER.createObjectNode();
        ArrayNode list = body.putArray("requests");
        for (Request request : requests) {
            list.addObject().put("custom_id", request.customId()).set("params", request.params());
        }
        return batch(send(builder(URI.create(provider.trimmedBaseUrl() + PATH))
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build()));
    }

    /** The batch as it stands now. */
    public Batch retrieve(String id) throws Failed, InterruptedException {
        return batch(send(builder(URI.create(provider.trimmedBaseUrl() + PATH + "/" + encode(id))).GET().build()));
    }

    /** A page of the list, newest first, starting after {@code afterId} (null: the newest). */
    public Page list(String afterId, int limit) throws Failed, InterruptedException {
        String query = "?limit=" + limit + (afterId == null ? "" : "&after_id=" + encode(afterId));
        JsonNode page = send(builder(URI.create(provider.trimmedBaseUrl() + PATH + query)).GET().build());
        List<Batch> batches = new ArrayList<>();
        for (JsonNode batch : page.path("data")) {
            batches.add(batch(batch));
        }
        return new Page(batches, page.path("has_more").asBoolean(false), page.path("last_id").asText(null));
    }

    /**
     * The result lines of an ended batch, one JSON object each ({@code custom_id} and {@code result}), in the
     * provider's order, which is none in particular.
     */
    public Stream<JsonNode> results(Batch batch) throws Failed, InterruptedException {
        if (batch.resultsUrl() == null) {
            throw new Failed("batch " + batch.id() + " has no results yet", 0);
        }
        HttpResponse<Stream<String>> response;
        try {
            response = http.send(builder(URI.create(batch.resultsUrl())).GET().build(),
                    HttpResponse.BodyHandlers.ofLines());
        } catch (IOException e) {
            throw new Failed("the results of batch " + batch.id() + " could not be read: "
                    + e.getClass().getSimpleName(), 0);
        }
        if (response.statusCode() / 100 != 2) {
            response.body().close();
            throw new Failed("the results of batch " + batch.id() + " were answered HTTP " + response.statusCode(),
                    response.statusCode());
        }
        // Read line by line as they arrive: a result file may be larger than this replica's memory.
        return response.body().filter(line -> !line.isBlank()).map(line -> {
            try {
                return WireJson.MAPPER.readTree(line);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    private HttpRequest.Builder builder(URI uri) {
        return HttpRequest.newBuilder(uri)
                .timeout(provider.getRequestTimeout())
                .header("x-api-key", provider.requireKey())
                .header("anthropic-version", provider.getAnthropicVersion());
    }

    private JsonNode send(HttpRequest request) throws Failed, InterruptedException {
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new Failed(request.method() + " " + request.uri().getPath() + " had no answer: "
                    + e.getClass().getSimpleName(), 0);
        }
        if (response.statusCode() / 100 != 2) {
            // The status alone: an error body may quote what was sent.
            throw new Failed(request.method() + " " + request.uri().getPath() + " was answered HTTP "
                    + response.statusCode(), response.statusCode());
        }
        try {
            return WireJson.MAPPER.readTree(response.body());
        } catch (IOException e) {
            throw new Failed(request.method() + " " + request.uri().getPath() + " answered with a body that is not "
                    + "JSON", response.statusCode());
        }
    }

    private static Batch batch(JsonNode json) {
        String created = json.path("created_at").asText(null);
        return new Batch(json.path("id").asText(), json.path("processing_status").asText(),
                json.path("results_url").isTextual() ? json.path("results_url").asText() : null,
                created == null ? null : Instant.parse(created));
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
