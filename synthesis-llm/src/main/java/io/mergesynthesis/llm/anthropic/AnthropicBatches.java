package io.mergesynthesis.llm.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.llm.BatchHttp;
import io.mergesynthesis.llm.ProviderBatches;
import io.mergesynthesis.llm.ProviderSettings;
import io.mergesynthesis.llm.WireJson;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Anthropic's Message Batches ({@code /v1/messages/batches}). A batch carries no metadata, so {@link #create}
 * sends no own id and a listed batch names none: a batch is recognised by the custom_ids of its results.
 */
public final class AnthropicBatches implements ProviderBatches {

    static final String PATH = "/v1/messages/batches";

    private final ProviderSettings provider;
    private final BatchHttp http;

    public AnthropicBatches(ProviderSettings provider) {
        this.provider = provider;
        this.http = new BatchHttp(provider);
    }

    /** {@inheritDoc} The own id is not sent: Anthropic keeps none; the custom_ids carry it. */
    @Override
    public Batch create(String ownId, List<Request> requests) throws Failed, InterruptedException {
        return batch(http.json(builder(PATH).header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(createBody(requests).toString())).build()));
    }

    /** What {@link #create} posts: {@code {"requests":[{"custom_id":…,"params":…},…]}}. */
    static ObjectNode createBody(List<Request> requests) {
        ObjectNode body = WireJson.MAPPER.createObjectNode();
        ArrayNode list = body.putArray("requests");
        for (Request request : requests) {
            list.addObject().put("custom_id", request.customId()).set("params", request.body());
        }
        return body;
    }

    @Override
    public Batch retrieve(String id) throws Failed, InterruptedException {
        return batch(http.json(builder(PATH + "/" + encode(id)).GET().build()));
    }

    @Override
    public Page list(String afterId, int limit) throws Failed, InterruptedException {
        String query = "?limit=" + limit + (afterId == null ? "" : "&after_id=" + encode(afterId));
        return page(http.json(builder(PATH + query).GET().build()));
    }

    @Override
    public Stream<Result> results(Batch batch) throws Failed, InterruptedException {
        if (!batch.ended() || batch.resultsAt().isEmpty() || batch.resultsAt().get(0) == null) {
            throw new Failed("batch " + batch.id() + " has no results yet", 0);
        }
        return http.lines(authorised(HttpRequest.newBuilder(URI.create(batch.resultsAt().get(0)))).GET().build())
                .map(AnthropicBatches::result);
    }

    @Override
    public Batch cancel(String id) throws Failed, InterruptedException {
        return batch(http.json(builder(PATH + "/" + encode(id) + "/cancel")
                .POST(HttpRequest.BodyPublishers.noBody()).build()));
    }

    @Override
    public boolean carriesOwnId() {
        return false;
    }

    private HttpRequest.Builder builder(String pathAndQuery) {
        return authorised(HttpRequest.newBuilder(URI.create(provider.trimmedBaseUrl() + pathAndQuery)));
    }

    private HttpRequest.Builder authorised(HttpRequest.Builder builder) {
        return builder.timeout(provider.getRequestTimeout())
                .header("x-api-key", provider.requireKey())
                .header("anthropic-version", provider.getAnthropicVersion());
    }

    /** A Message Batch object. */
    static Batch batch(JsonNode json) {
        String status = json.path("processing_status").asText("");
        Stage stage = switch (status) {
            case "ended" -> Stage.ENDED;
            case "canceling" -> Stage.CANCELING;
            default -> Stage.IN_PROGRESS;
        };
        String resultsUrl = json.path("results_url").isTextual() ? json.path("results_url").asText() : null;
        return new Batch(json.path("id").asText(), stage, instant(json.path("created_at")), null, status,
                resultsUrl == null ? List.of() : List.of(resultsUrl));
    }

    /** A page of the list. */
    static Page page(JsonNode json) {
        List<Batch> batches = new ArrayList<>();
        for (JsonNode batch : json.path("data")) {
            batches.add(batch(batch));
        }
        return new Page(batches, json.path("has_more").asBoolean(false),
                json.path("last_id").isTextual() ? json.path("last_id").asText() : null);
    }

    /** One line of a batch's results: {@code custom_id} and {@code result}. */
    static Result result(JsonNode line) {
        String customId = line.path("custom_id").asText();
        JsonNode result = line.path("result");
        String type = result.path("type").asText("");
        return switch (type) {
            case "succeeded" -> new Result(customId, Outcome.SUCCEEDED, result.path("message"), null);
            case "canceled" -> new Result(customId, Outcome.CANCELED, null, null);
            case "expired" -> new Result(customId, Outcome.EXPIRED, null, null);
            case "errored" -> new Result(customId, Outcome.ERRORED, null, errorType(result.path("error")));
            default -> new Result(customId, Outcome.ERRORED, null, type.isEmpty() ? "unknown_result" : type);
        };
    }

    /** An errored result's error: an error body ({@code error.error.type}) or the error itself ({@code error.type}). */
    private static String errorType(JsonNode error) {
        JsonNode inner = error.path("error").path("type");
        if (inner.isTextual()) {
            return inner.asText();
        }
        return error.path("type").isTextual() ? error.path("type").asText() : "unknown_error";
    }

    private static Instant instant(JsonNode value) {
        if (!value.isTextual()) {
            return null;
        }
        try {
            return Instant.parse(value.asText());
        } catch (DateTimeParseException e) {
            return java.time.OffsetDateTime.parse(value.asText()).toInstant();
        }
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
