package io.mergesynthesis.drills;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import io.mergesynthesis.harness.Replica;

/**
 * A policy engine reporting conflicts while the drill hurts the replicas: batches of new conflicts, each batch of
 * one org (its own ingest token), POSTed at a steady pace on a thread of its own to whichever replica answers.
 * A batch that gets no answer (the replica was killed, is stopping, or is not up yet) or a 5xx is sent again to
 * the next replica, as a client behind a load balancer would retry; ingest is idempotent on the dedup key, so a
 * batch stored just before its answer was lost is not stored twice. Any other answer fails the feed.
 */
final class ConflictFeed {

    /** A batch that no replica stores for this long fails the feed: the drill is broken, not slow. */
    private static final Duration GIVE_UP_AFTER = Duration.ofSeconds(90);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<Replica> replicas;
    private final Map<UUID, String> tokens = new LinkedHashMap<>();
    private final String target;
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong resent = new AtomicLong();
    private volatile boolean stopRequested;
    private volatile Throwable failure;
    private Thread thread;
    private int nextReplica;

    /** A feed for {@code orgs} new orgs, minting an ingest token for each. */
    ConflictFeed(DrillDatabase database, List<Replica> replicas, int orgs, String target) {
        this.replicas = List.copyOf(replicas);
        this.target = target;
        for (int i = 0; i < orgs; i++) {
            UUID org = UUID.randomUUID();
            tokens.put(org, ApiClient.mintToken(database, "ingest", org));
        }
    }

    /**
     * Starts sending {@code total} conflicts, {@code batchSize} to a POST, one POST every {@code pace} (a POST
     * that takes longer delays the next one, nothing more), until all are stored or {@link #stop()} is called.
     */
    ConflictFeed start(int total, int batchSize, Duration pace) {
        if (thread != null) {
            throw new IllegalStateException("the feed was already started");
        }
        thread = new Thread(() -> {
            try {
                feed(total, batchSize, pace);
            } catch (Throwable e) {
                failure = e;
            }
        }, "conflict-feed");
        thread.setDaemon(true);
        thread.start();
        return this;
    }

    /** Sends no further batch after the one in flight. */
    void stop() {
        stopRequested = true;
    }

    /** Waits for the feed to end (all sent, or stopped); how many conflicts were stored. */
    long awaitEnd(Duration timeout) throws InterruptedException {
        thread.join(timeout.toMillis());
        if (thread.isAlive()) {
            stop();
            throw new IllegalStateException("the conflict feed had not ended after " + timeout.toSeconds()
                    + " s; " + sent.get() + " conflicts stored so far");
        }
        if (failure != null) {
            throw new IllegalStateException("the conflict feed failed after storing " + sent.get()
                    + " conflicts", failure);
        }
        return sent.get();
    }

    /** The orgs the feed sends conflicts for, in the order it takes turns among them. */
    List<UUID> orgs() {
        return List.copyOf(tokens.keySet());
    }

    /** Conflicts stored so far (acknowledged by a replica). */
    long sent() {
        return sent.get();
    }

    /** Batches sent again because a replica did not answer, or answered 5xx. */
    long resent() {
        return resent.get();
    }

    private void feed(int total, int batchSize, Duration pace) throws InterruptedException {
        List<UUID> orgs = new ArrayList<>(tokens.keySet());
        long next = System.nanoTime();
        int batch = 0;
        for (int first = 0; first < total && !stopRequested; first += batchSize, batch++) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                // The feed's pace is the load the drill puts on the fleet: time between batches, on purpose.
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            }
            next += pace.toNanos();
            UUID org = orgs.get(batch % orgs.size());
            int size = Math.min(batchSize, total - first);
            StringBuilder body = new StringBuilder("{\"conflicts\": [");
            for (int i = 0; i < size; i++) {
                body.append(i == 0 ? "" : ",").append(ApiClient.conflictJson(org, target, first + i));
            }
            body.append("]}");
            post(tokens.get(org), body.toString(), size);
            sent.addAndGet(size);
        }
    }

    /** Sends one batch until a replica stores it: to each replica in turn, pausing after a round that failed. */
    private void post(String token, String body, int size) throws InterruptedException {
        long deadline = System.nanoTime() + GIVE_UP_AFTER.toNanos();
        String lastProblem = "no replica was running";
        while (System.nanoTime() < deadline) {
            for (int tried = 0; tried < replicas.size(); tried++) {
                Replica replica = replicas.get(nextReplica++ % replicas.size());
                if (!replica.isAlive()) {
                    continue;
                }
                try {
                    HttpResponse<String> response = ApiClient.post(replica.api("/v1/conflicts"), token, body);
                    if (response.statusCode() == 200) {
                        JsonNode results = JSON.readTree(response.body()).path("results");
                        if (results.size() != size) {
                            throw new IllegalStateException(replica.name() + " answered a batch of " + size
                                    + " with " + results.size() + " results: " + response.body());
                        }
                        return;
                    }
                    if (response.statusCode() < 500) {
                        throw new IllegalStateException(replica.name() + " refused a batch with "
                                + response.statusCode() + ": " + response.body());
                    }
                    lastProblem = replica.name() + " answered " + response.statusCode();
                } catch (IOException e) {
                    lastProblem = replica.name() + ": " + e;
                }
                resent.incrementAndGet();
            }
            // A client's pause between rounds of retries: the feed acts as a client would, and there is no
            // signal of a replica's return to wait on that a client would have.
            Thread.sleep(50);
        }
        throw new IllegalStateException("no replica stored a batch within " + GIVE_UP_AFTER.toSeconds()
                + " s; last problem: " + lastProblem);
    }
}
