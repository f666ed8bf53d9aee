package io.mergesynthesis.standin;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The batches of both protocols and what became of each request, apart from how either protocol writes them. A
 * batch is processed as a test (or the behaviour's delays) says: some of its requests answered now
 * ({@link #answerFirst}), the rest when it ends ({@link #end}: answered; {@link #expire}: expired; a cancelled
 * batch's: canceled). Each request answered is billed once, as it is answered.
 */
final class BatchBook {

    private static final com.fasterxml.jackson.databind.ObjectMapper USAGE_READER =
            new com.fasterxml.jackson.databind.ObjectMapper();

    static final String ANTHROPIC = "anthropic";
    static final String OPENAI = "openai";

    /** What became of one request. */
    enum Kind { SUCCEEDED, ERRORED, EXPIRED, CANCELED }

    /** How a batch ended. */
    enum Ending { COMPLETED, EXPIRED, CANCELED, FAILED }

    /** How one protocol answers a request of a batch, as its single call would be answered. */
    interface Answerer {
        Reply answer(JsonNode body);

        /** A provider error in this protocol's form, for a request the behaviour errs. */
        Reply error(int status, String type, String message);
    }

    /** One request of a batch. */
    static final class Item {
        final int index;
        final String customId;
        final JsonNode body;
        Kind kind; // guarded by the batch
        Reply reply; // guarded by the batch: the answer or the error, for SUCCEEDED and ERRORED

        Item(int index, String customId, JsonNode body) {
            this.index = index;
            this.customId = customId;
            this.body = body;
        }
    }

    /** One batch. Everything mutable is guarded by the batch itself. */
    static final class Batch {
        final String id;
        final String protocol;
        final Instant createdAt;
        final List<Item> items;
        final Map<String, String> metadata;
        /** OpenAI: the file the requests came in. */
        final String inputFileId;
        /** OpenAI: why the whole input was refused; empty for a batch that was not. */
        final List<String> refusals;
        boolean seen; // whether the create's answer has been given
        int processed;
        Instant cancelingAt;
        Ending ending;
        Instant endedAt;

        Batch(String id, String protocol, Instant createdAt, List<Item> items, Map<String, String> metadata,
              String inputFileId, List<String> refusals) {
            this.id = id;
            this.protocol = protocol;
            this.createdAt = createdAt;
            this.items = items;
            this.metadata = metadata;
            this.inputFileId = inputFileId;
            this.refusals = refusals;
        }

        boolean ended() {
            return ending != null;
        }

        long count(Kind kind) {
            return items.stream().filter(item -> item.kind == kind).count();
        }
    }

    private final Map<String, Answerer> answerers;
    private final Stats stats;
    private final ScheduledExecutorService delays;
    private final Behaviour behaviour;
    private final AtomicLong serial = new AtomicLong();
    /** In creation order; the lists read it backwards. Guarded by itself. */
    private final Map<String, Batch> batches = new LinkedHashMap<>();

    BatchBook(Map<String, Answerer> answerers, Stats stats, ScheduledExecutorService delays, Behaviour behaviour) {
        this.answerers = answerers;
        this.stats = stats;
        this.delays = delays;
        this.behaviour = behaviour;
    }

    /**
     * Makes a batch of {@code items} (custom_id and body each); with {@code refusals}, one refused as a whole,
     * ended at once with nothing processed.
     */
    Batch create(String protocol, String idPrefix, List<Map.Entry<String, JsonNode>> items,
                 Map<String, String> metadata, String inputFileId, List<String> refusals) {
        List<Item> kept = new ArrayList<>();
        for (Map.Entry<String, JsonNode> item : items) {
            kept.add(new Item(kept.size(), item.getKey(), item.getValue()));
        }
        Instant now = Instant.now();
        Batch batch = new Batch(idPrefix + serial.incrementAndGet(), protocol, now, List.copyOf(kept),
                Collections.unmodifiableMap(new LinkedHashMap<>(metadata)), inputFileId, List.copyOf(refusals));
        if (!refusals.isEmpty()) {
            batch.ending = Ending.FAILED;
            batch.endedAt = now;
        }
        synchronized (batches) {
            batches.put(batch.id, batch);
        }
        stats.batch(protocol);
        Duration delay = behaviour.batchDelay();
        if (refusals.isEmpty() && !delay.isZero()) {
            delays.schedule(() -> end(batch.id), delay.toNanos(), TimeUnit.NANOSECONDS);
        }
        return batch;
    }

    Batch find(String id) {
        synchronized (batches) {
            return batches.get(id);
        }
    }

    /** The batches of {@code protocol}, newest first. */
    List<Batch> newestFirst(String protocol) {
        List<Batch> out = new ArrayList<>();
        synchronized (batches) {
            for (Batch batch : batches.values()) {
                if (batch.protocol.equals(protocol)) {
                    out.add(batch);
                }
            }
        }
        Collections.reverse(out);
        return out;
    }

    /** The ids of the batches not yet ended, either protocol, oldest first. */
    List<String> inProgress() {
        List<String> ids = new ArrayList<>();
        synchronized (batches) {
            for (Batch batch : batches.values()) {
                synchronized (batch) {
                    if (!batch.ended()) {
                        ids.add(batch.id);
                    }
                }
            }
        }
        return ids;
    }

    /**
     * Answers (and bills) the next {@code n} requests of a batch in progress now, without ending it. False when
     * there is no such batch, or it is cancelling or ended.
     */
    boolean answerFirst(String id, int n) {
        Batch batch = find(id);
        if (batch == null) {
            return false;
        }
        synchronized (batch) {
            if (batch.ended() || batch.cancelingAt != null) {
                return false;
            }
            while (n-- > 0 && batch.processed < batch.items.size()) {
                answer(batch, batch.items.get(batch.processed++));
            }
        }
        return true;
    }

    /**
     * Ends a batch now. In progress: the rest answered and billed. Cancelling: the rest canceled. False when there
     * is none or it had ended.
     */
    boolean end(String id) {
        Batch batch = find(id);
        if (batch == null) {
            return false;
        }
        synchronized (batch) {
            if (batch.ended()) {
                return false;
            }
            if (batch.cancelingAt != null) {
                close(batch, Kind.CANCELED, Ending.CANCELED);
            } else {
                while (batch.processed < batch.items.size()) {
                    answer(batch, batch.items.get(batch.processed++));
                }
                batch.ending = Ending.COMPLETED;
                batch.endedAt = Instant.now();
            }
        }
        return true;
    }

    /** Ends a batch now with the requests not yet answered expired; false when there is none or it had ended. */
    boolean expire(String id) {
        Batch batch = find(id);
        if (batch == null) {
            return false;
        }
        synchronized (batch) {
            if (batch.ended()) {
                return false;
            }
            close(batch, Kind.EXPIRED, Ending.EXPIRED);
        }
        return true;
    }

    /**
     * Asks a batch to cancel: a batch in progress is cancelling from now, until a test ends it ({@link #end}) or
     * the behaviour's cancel delay has passed. The batch, or null when there is none.
     */
    Batch cancel(String id) {
        Batch batch = find(id);
        if (batch == null) {
            return null;
        }
        synchronized (batch) {
            if (batch.ended() || batch.cancelingAt != null) {
                return batch;
            }
            batch.cancelingAt = Instant.now();
        }
        Duration delay = behaviour.batchCancelDelay();
        if (!delay.isZero()) {
            delays.schedule(() -> end(id), delay.toNanos(), TimeUnit.NANOSECONDS);
        }
        return batch;
    }

    /** The batch's processed requests in the order its results are written: any, as the providers' are. */
    List<Item> resultOrder(Batch batch) {
        List<Item> out;
        synchronized (batch) {
            out = new ArrayList<>(batch.items.subList(0, batch.processed));
        }
        Long seed = behaviour.batchResultSeed();
        if (seed == null) {
            Collections.reverse(out);
        } else {
            Collections.shuffle(out, new Random(seed));
        }
        return out;
    }

    /** The usage an answer reports, read back from its body in its protocol's fields. */
    private static Tokens usage(String protocol, Reply reply) {
        JsonNode usage;
        try {
            usage = USAGE_READER.readTree(reply.body()).path("usage");
        } catch (java.io.IOException e) {
            throw new IllegalStateException("the stand-in wrote an answer it cannot read back", e);
        }
        if (protocol.equals(ANTHROPIC)) {
            return new Tokens(usage.path("input_tokens").asLong(), usage.path("output_tokens").asLong(),
                    usage.path("cache_read_input_tokens").asLong(), usage.path("cache_creation_input_tokens").asLong());
        }
        long cached = usage.path("prompt_tokens_details").path("cached_tokens").asLong();
        return new Tokens(usage.path("prompt_tokens").asLong() - cached, usage.path("completion_tokens").asLong(),
                cached, 0);
    }

    private void close(Batch batch, Kind rest, Ending ending) {
        while (batch.processed < batch.items.size()) {
            batch.items.get(batch.processed++).kind = rest;
        }
        batch.ending = ending;
        batch.endedAt = Instant.now();
    }

    /** Answers one request: errored when the behaviour says so (not billed), else as its single call would be. */
    private void answer(Batch batch, Item item) {
        Answerer answerer = answerers.get(batch.protocol);
        int every = behaviour.batchErrorEvery();
        double rate = behaviour.batchErrorRate();
        boolean erred = (every > 0 && (item.index + 1) % every == 0)
                || (rate > 0 && ThreadLocalRandom.current().nextDouble() < rate);
        Reply reply = erred ? answerer.error(500, "api_error", "stand-in: this request of the batch failed")
                : answerer.answer(item.body);
        item.reply = reply;
        if (reply.status() == 200) {
            item.kind = Kind.SUCCEEDED;
            stats.batchBilled(batch.protocol, item.customId, item.body.path("model").asText(""));
            stats.batchTokens(item.customId, usage(batch.protocol, reply));
        } else {
            item.kind = Kind.ERRORED;
        }
    }
}
