package io.mergesynthesis.standin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.standin.BatchBook.Batch;
import io.mergesynthesis.standin.BatchBook.Item;
import io.mergesynthesis.standin.BatchBook.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Anthropic's Message Batches as the stand-in speaks them: {@code POST /v1/messages/batches}, {@code GET} of one
 * batch, of the list (newest first, paged by {@code after_id} and {@code limit}), of a batch's results as JSON
 * lines, and {@code POST /v1/messages/batches/{id}/cancel}. What becomes of each request is the {@link BatchBook}'s;
 * this class writes it in Anthropic's shapes.
 */
final class MessageBatches {

    static final String PATH = "/v1/messages/batches";
    /** Anthropic's own rule for a custom_id. */
    private static final Pattern CUSTOM_ID = Pattern.compile("^[a-zA-Z0-9_-]{1,64}$");

    private final ObjectMapper mapper;
    private final BatchBook book;

    MessageBatches(ObjectMapper mapper, BatchBook book) {
        this.mapper = mapper;
        this.book = book;
    }

    /** Whether this path is one of ours. */
    static boolean serves(String path) {
        return path.equals(PATH) || path.startsWith(PATH + "/");
    }

    /** Whether this is a create, whose answer the behaviour may hold back. */
    static boolean isCreate(String method, String path) {
        return method.equals("POST") && path.equals(PATH);
    }

    /** Whether this is a look at one batch, whose answer the behaviour may hold back. */
    static boolean isRetrieve(String method, String path) {
        return method.equals("GET") && path.startsWith(PATH + "/") && path.indexOf('/', PATH.length() + 1) < 0;
    }

    Reply handle(String method, String path, Map<String, String> query, byte[] body, String baseUrl) {
        try {
            if (path.equals(PATH) && method.equals("POST")) {
                return create(body, baseUrl);
            }
            if (path.equals(PATH) && method.equals("GET")) {
                return list(query, baseUrl);
            }
            String rest = path.substring(PATH.length() + 1);
            if (method.equals("GET") && rest.endsWith("/results")) {
                return results(rest.substring(0, rest.length() - "/results".length()));
            }
            if (method.equals("POST") && rest.endsWith("/cancel")) {
                String id = rest.substring(0, rest.length() - "/cancel".length());
                Batch batch = book.cancel(id);
                return batch == null || !batch.protocol.equals(BatchBook.ANTHROPIC) ? notFound(id)
                        : new Reply(200, Map.of(), json(batch, baseUrl).toString());
            }
            if (method.equals("GET") && !rest.contains("/")) {
                Batch batch = find(rest);
                return batch == null ? notFound(rest) : new Reply(200, Map.of(), json(batch, baseUrl).toString());
            }
            return error(404, "not_found_error", "no such endpoint");
        } catch (IllegalArgumentException e) {
            return error(400, "invalid_request_error", e.getMessage());
        }
    }

    private Reply create(byte[] body, String baseUrl) {
        JsonNode request;
        try {
            request = mapper.readTree(body);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("the body is not JSON");
        }
        JsonNode requests = request == null ? null : request.path("requests");
        if (requests == null || !requests.isArray() || requests.isEmpty()) {
            throw new IllegalArgumentException("requests: a list of 1 to 100000 items is required");
        }
        Set<String> seen = new HashSet<>();
        List<Map.Entry<String, JsonNode>> kept = new ArrayList<>();
        for (JsonNode item : requests) {
            String customId = item.path("custom_id").asText("");
            if (!CUSTOM_ID.matcher(customId).matches()) {
                throw new IllegalArgumentException("custom_id '" + customId + "' does not match ^[a-zA-Z0-9_-]{1,64}$");
            }
            if (!seen.add(customId)) {
                throw new IllegalArgumentException("custom_id '" + customId + "' appears twice in the batch");
            }
            if (!item.path("params").isObject()) {
                throw new IllegalArgumentException("params of '" + customId + "' is not an object");
            }
            kept.add(Map.entry(customId, item.path("params")));
        }
        Batch batch = book.create(BatchBook.ANTHROPIC, "msgbatch_standin_", kept, Map.of(), null, List.of());
        return new Reply(200, Map.of(), json(batch, baseUrl).toString());
    }

    private Reply list(Map<String, String> query, String baseUrl) {
        int limit = Integer.parseInt(query.getOrDefault("limit", "20"));
        if (limit < 1 || limit > 1000) {
            throw new IllegalArgumentException("limit must be from 1 to 1000");
        }
        String after = query.get("after_id");
        List<Batch> newestFirst = book.newestFirst(BatchBook.ANTHROPIC);
        int from = 0;
        if (after != null) {
            from = newestFirst.indexOf(find(after)) + 1;
        }
        List<Batch> page = newestFirst.subList(Math.min(from, newestFirst.size()),
                Math.min(from + limit, newestFirst.size()));
        ObjectNode out = mapper.createObjectNode();
        ArrayNode data = out.putArray("data");
        page.forEach(b -> data.add(json(b, baseUrl)));
        out.put("has_more", from + limit < newestFirst.size());
        out.put("first_id", page.isEmpty() ? null : page.get(0).id);
        out.put("last_id", page.isEmpty() ? null : page.get(page.size() - 1).id);
        return new Reply(200, Map.of(), out.toString());
    }

    private Reply results(String id) {
        Batch batch = find(id);
        if (batch == null) {
            return notFound(id);
        }
        synchronized (batch) {
            if (!batch.ended()) {
                return error(404, "not_found_error", "batch " + id + " has not ended: no results yet");
            }
        }
        StringBuilder lines = new StringBuilder();
        for (Item item : book.resultOrder(batch)) {
            lines.append(line(item)).append('\n');
        }
        return new Reply(200, Map.of("content-type", "application/x-jsonl"), lines.toString());
    }

    private ObjectNode line(Item item) {
        ObjectNode line = mapper.createObjectNode();
        line.put("custom_id", item.customId);
        ObjectNode result = line.putObject("result");
        switch (item.kind) {
            case SUCCEEDED -> {
                result.put("type", "succeeded");
                result.set("message", readOrEmpty(item.reply.body()));
            }
            case ERRORED -> {
                result.put("type", "errored");
                result.set("error", readOrEmpty(item.reply.body()));
            }
            case EXPIRED -> result.put("type", "expired");
            case CANCELED -> result.put("type", "canceled");
        }
        return line;
    }

    private JsonNode readOrEmpty(String body) {
        try {
            JsonNode node = mapper.readTree(body);
            return node == null ? mapper.createObjectNode() : node;
        } catch (java.io.IOException e) {
            return mapper.createObjectNode();
        }
    }

    /** An Anthropic batch, or null for none (or another protocol's). */
    private Batch find(String id) {
        Batch batch = book.find(id);
        return batch != null && batch.protocol.equals(BatchBook.ANTHROPIC) ? batch : null;
    }

    private ObjectNode json(Batch batch, String baseUrl) {
        ObjectNode out = mapper.createObjectNode();
        synchronized (batch) {
            out.put("id", batch.id);
            out.put("type", "message_batch");
            out.put("processing_status", batch.ended() ? "ended" : batch.cancelingAt != null ? "canceling"
                    : "in_progress");
            ObjectNode counts = out.putObject("request_counts");
            counts.put("processing", batch.items.size() - batch.processed);
            counts.put("succeeded", batch.count(Kind.SUCCEEDED));
            counts.put("errored", batch.count(Kind.ERRORED));
            counts.put("canceled", batch.count(Kind.CANCELED));
            counts.put("expired", batch.count(Kind.EXPIRED));
            out.put("created_at", batch.createdAt.toString());
            out.put("ended_at", batch.endedAt == null ? null : batch.endedAt.toString());
            out.put("expires_at", batch.createdAt.plus(Duration.ofHours(24)).toString());
            out.put("cancel_initiated_at", batch.cancelingAt == null ? null : batch.cancelingAt.toString());
            out.putNull("archived_at");
            out.put("results_url", batch.ended() ? baseUrl + PATH + "/" + batch.id + "/results" : null);
        }
        return out;
    }

    private Reply notFound(String id) {
        return error(404, "not_found_error", "no batch " + id);
    }

    private Reply error(int status, String type, String message) {
        ObjectNode body = mapper.createObjectNode();
        body.put("type", "error");
        ObjectNode error = body.putObject("error");
        error.put("type", type);
        error.put("message", message);
        return new Reply(status, Map.of(), body.toString());
    }
}
