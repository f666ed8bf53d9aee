package io.mergesynthesis.standin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Anthropic's Message Batches as the stand-in speaks them: {@code POST /v1/messages/batches}, {@code GET} of one
 * batch, of the list (newest first, paged by {@code after_id} and {@code limit}) and of a batch's results as JSON
 * lines. A batch stays {@code in_progress} until a test ends it ({@link #end}, {@link #expire}) or until the
 * behaviour's batch delay has passed; it is processed when it ends, each request answered as the Messages API
 * would answer it, and each answered request billed once.
 */
final class MessageBatches {

    static final String PATH = "/v1/messages/batches";
    /** Anthropic's own rule for a custom_id. */
    private static final Pattern CUSTOM_ID = Pattern.compile("^[a-zA-Z0-9_-]{1,64}$");

    private final ObjectMapper mapper;
    private final Function<JsonNode, Reply> answerer;
    private final Stats stats;
    private final ScheduledExecutorService delays;
    private final Behaviour behaviour;
    private final AtomicLong serial = new AtomicLong();
    /** In creation order; the list reads it backwards. Guarded by itself. */
    private final Map<String, Batch> batches = new LinkedHashMap<>();

    /**
     * @param answerer answers one request's {@code params} as {@code POST /v1/messages} would
     */
    MessageBatches(ObjectMapper mapper, Function<JsonNode, Reply> answerer, Stats stats,
                   ScheduledExecutorService delays, Behaviour behaviour) {
        this.mapper = mapper;
        this.answerer = answerer;
        this.stats = stats;
        this.delays = delays;
        this.behaviour = behaviour;
    }

    /** One batch: its requests as sent, and once ended, one result line per request. */
    private static final class Batch {
        final String id;
        final Instant createdAt;
        final List<JsonNode> requests;
        String status = "in_progress"; // guarded by this
        Instant endedAt; // guarded by this
        List<ObjectNode> results; // guarded by this
        final Map<String, Long> counts = new LinkedHashMap<>(); // guarded by this

        Batch(String id, Instant createdAt, List<JsonNode> requests) {
            this.id = id;
            this.createdAt = createdAt;
            this.requests = requests;
            counts.put("processing", (long) requests.size());
            for (String kind : List.of("succeeded", "errored", "canceled", "expired")) {
                counts.put(kind, 0L);
            }
        }
    }

    /** Whether this path is one of ours. */
    static boolean serves(String path) {
        return path.equals(PATH) || path.startsWith(PATH + "/");
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
        List<JsonNode> kept = new ArrayList<>();
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
            kept.add(item);
        }
        Batch batch = new Batch("msgbatch_standin_" + serial.incrementAndGet(), Instant.now(), List.copyOf(kept));
        synchronized (batches) {
            batches.put(batch.id, batch);
        }
        stats.batch();
        Duration delay = behaviour.batchDelay();
        if (!delay.isZero()) {
            delays.schedule(() -> end(batch.id), delay.toNanos(), TimeUnit.NANOSECONDS);
        }
        return new Reply(200, Map.of(), json(batch, baseUrl).toString());
    }

    private Reply list(Map<String, String> query, String baseUrl) {
        int limit = Integer.parseInt(query.getOrDefault("limit", "20"));
        if (limit < 1 || limit > 1000) {
            throw new IllegalArgumentException("limit must be from 1 to 1000");
        }
        String after = query.get("after_id");
        List<Batch> newestFirst;
        synchronized (batches) {
            newestFirst = new ArrayList<>(batches.values());
        }
        java.util.Collections.reverse(newestFirst);
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
        StringBuilder lines = new StringBuilder();
        synchronized (batch) {
            if (batch.results == null) {
                return error(404, "not_found_error", "batch " + id + " has not ended: no results yet");
            }
            // Any order, as the provider's: the reader must key on custom_id.
            List<ObjectNode> shuffled = new ArrayList<>(batch.results);
            java.util.Collections.reverse(shuffled);
            shuffled.forEach(line -> lines.append(line).append('\n'));
        }
        return new Reply(200, Map.of("content-type", "application/x-jsonl"), lines.toString());
    }

    /** Ends the batch now: every request answered and billed once. False when there is none or it had ended. */
    boolean end(String id) {
        return close(id, false);
    }

    /** Ends the batch now with every request expired, none answered or billed. */
    boolean expire(String id) {
        return close(id, true);
    }

    /** The ids of the batches not yet ended, oldest first. */
    List<String> inProgress() {
        List<String> ids = new ArrayList<>();
        synchronized (batches) {
            for (Batch batch : batches.values()) {
                synchronized (batch) {
                    if (batch.results == null) {
                        ids.add(batch.id);
                    }
                }
            }
        }
        return ids;
    }

    private boolean close(String id, boolean expired) {
        Batch batch = find(id);
        if (batch == null) {
            return false;
        }
        synchronized (batch) {
            if (batch.results != null) {
                return false;
            }
            List<ObjectNode> results = new ArrayList<>();
            for (JsonNode request : batch.requests) {
                ObjectNode line = mapper.createObjectNode();
                line.put("custom_id", request.path("custom_id").asText());
                ObjectNode result = line.putObject("result");
                if (expired) {
                    result.put("type", "expired");
                } else {
                    Reply reply = answerer.apply(request.path("params"));
                    JsonNode answer = readOrNull(reply.body());
                    if (reply.status() == 200 && answer != null) {
                        result.put("type", "succeeded");
                        result.set("message", answer);
                        stats.batchBilled(request.path("params").path("model").asText(""));
                    } else {
                        result.put("type", "errored");
                        result.set("error", answer != null ? answer : mapper.createObjectNode());
                    }
                }
                String type = result.path("type").asText();
                batch.counts.merge(type, 1L, Long::sum);
                batch.counts.merge("processing", -1L, Long::sum);
                results.add(line);
            }
            batch.results = results;
            batch.status = "ended";
            batch.endedAt = Instant.now();
        }
        return true;
    }

    private JsonNode readOrNull(String body) {
        try {
            return mapper.readTree(body);
        } catch (java.io.IOException e) {
            return null;
        }
    }

    private Batch find(String id) {
        synchronized (batches) {
            return batches.get(id);
        }
    }

    private ObjectNode json(Batch batch, String baseUrl) {
        ObjectNode out = mapper.createObjectNode();
        synchronized (batch) {
            out.put("id", batch.id);
            out.put("type", "message_batch");
            out.put("processing_status", batch.status);
            ObjectNode counts = out.putObject("request_counts");
            batch.counts.forEach(counts::put);
            out.put("created_at", batch.createdAt.toString());
            out.put("ended_at", Optional.ofNullable(batch.endedAt).map(Instant::toString).orElse(null));
            out.put("expires_at", batch.createdAt.plus(Duration.ofHours(24)).toString());
            out.put("results_url", batch.results == null ? null : baseUrl + PATH + "/" + batch.id + "/results");
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
