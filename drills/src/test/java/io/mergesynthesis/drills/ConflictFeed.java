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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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
    private final CountDownLatch ended = new CountDownLatch(1);
    private ScheduledExecutorService schedule;
    // Read and written on the schedule's one thread only.
    private int nextFirst;
    private int batches;
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
     * The pace is the load the drill puts on the fleet, so a schedule at that fixed rate sends the batches.
     */
    ConflictFeed start(int total, int batchSize, Duration pace) {
        if (schedule != null) {
            throw new IllegalStateException("the feed was already started");
        }
        schedule = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "conflict-feed");
            thread.setDaemon(true);
            return thread;
        });
        List<UUID> orgs = new ArrayList<>(tokens.keySet());
        schedule.scheduleAtFixedRate(() -> {
            try {
                if (nextFirst >= total || stopRequested) {
                    end();
                    return;
                }
                sendBatch(orgs.get(batches % orgs.size()), nextFirst, Math.min(batchSize, total - nextFirst));
                nextFirst += batchSize;
                batches++;
                if (nextFirst >= total) {
                    end();
                }
            } catch (Throwable e) {
                failure = e;
                end();
            }
        }, 0, pace.toNanos(), TimeUnit.NANOSECONDS);
        return this;
    }

    /** Sends no further batch after the one in flight. */
    void stop() {
        stopRequested = true;
    }

    /** Waits for the feed to end (all sent, or stopped); how many conflicts were stored. */
    long awaitEnd(Duration timeout) throws InterruptedException {
        if (!ended.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
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

    private void sendBatch(UUID org, int first, int size) throws InterruptedException {
        StringBuilder body = new StringBuilder("{\"conflicts\": [");
        for (int i = 0; i < size; i++) {
            body.append(i == 0 ? "" : ",").append(ApiClient.conflictJson(org, target, first + i));
        }
        body.append("]}");
        post(tokens.get(org), body.toString(), size);
        sent.addAndGet(size);
    }

    /** Ends the schedule, from its own thread; the batch that called this was the last. */
    private void end() {
        ended.countDown();
        schedule.shutdown();
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
