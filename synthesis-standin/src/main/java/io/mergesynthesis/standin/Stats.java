package io.mergesynthesis.standin;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the stand-in has been asked so far: requests by path, by answered status and by model, and how many
 * were repairs of a refused answer. Tests count with it that a paused provider really received nothing.
 */
public final class Stats {

    private final LongAdder requests = new LongAdder();
    private final LongAdder repairs = new LongAdder();
    private final LongAdder inputTokens = new LongAdder();
    private final LongAdder outputTokens = new LongAdder();
    private final LongAdder inputLetIn = new LongAdder();
    private final LongAdder outputLetIn = new LongAdder();
    private final LongAdder batches = new LongAdder();
    private final LongAdder batchBilled = new LongAdder();
    private final Map<String, LongAdder> batchesByProtocol = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> batchBilledByProtocol = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> billedByCustomId = new ConcurrentHashMap<>();
    private final Map<String, Tokens> billedTokensByCustomId = new ConcurrentHashMap<>();
    private final Gaps gaps = new Gaps();
    private final Map<String, LongAdder> byPath = new ConcurrentHashMap<>();
    private final Map<Integer, LongAdder> byStatus = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> byModel = new ConcurrentHashMap<>();

    /**
     * A consistent-enough copy for assertions and the stats endpoint.
     *
     * @param repairs      requests that carried the merge check's findings about an earlier answer
     * @param inputTokens  what the token limits were charged for input, by the answers let through them
     * @param outputTokens what those answers wrote, as the output limits kept it
     * @param inputLetIn   the input of every request the token limits let in, counted as it was let in
     * @param outputLetIn  what those requests write, counted as they were let in (an answer's length is known
     *                     then): unlike the two above, these do not lag behind by the answers still on their way
     * @param sinceFirstCall nanoseconds from the first call to a model until this snapshot; -1 before it
     * @param longestGap   the longest time in nanoseconds between two calls to a model, or from the last call
     *                     until this snapshot when that is longer; 0 before the first call
     * @param firstGap     nanoseconds between the first call to a model and the second: for a client that sends
     *                     its first call alone, the wait for its answer; -1 before the second call
     * @param longestLaterGap as {@code longestGap}, leaving out the first gap; 0 before the second call
     * @param longestLaterGapEnd nanoseconds from the first call to the end of that gap (to this snapshot when it is
     *                     still open); -1 before the second call
     * @param batches      batches created, either protocol
     * @param batchBilled  requests in batches answered and billed, each once, when its batch was processed
     * @param batchesByProtocol     batches created, by protocol ({@code anthropic}, {@code openai})
     * @param batchBilledByProtocol requests in batches billed, by protocol
     * @param billedByCustomId      how many times each custom_id was billed in a batch, either protocol
     */
    public record Snapshot(long requests, Map<String, Long> byPath, Map<Integer, Long> byStatus,
                           Map<String, Long> byModel, long repairs, long inputTokens, long outputTokens,
                           long inputLetIn, long outputLetIn, long sinceFirstCall, long longestGap,
                           long firstGap, long longestLaterGap, long longestLaterGapEnd,
                           long batches, long batchBilled, Map<String, Long> batchesByProtocol,
                           Map<String, Long> batchBilledByProtocol, Map<String, Long> billedByCustomId) {

        public long batches(String protocol) {
            return batchesByProtocol.getOrDefault(protocol, 0L);
        }

        public long batchBilled(String protocol) {
            return batchBilledByProtocol.getOrDefault(protocol, 0L);
        }

        /** The custom_ids billed more than once: for a drill, what must stay empty. */
        public java.util.Set<String> billedMoreThanOnce() {
            java.util.Set<String> ids = new java.util.TreeSet<>();
            billedByCustomId.forEach((id, times) -> {
                if (times > 1) {
                    ids.add(id);
                }
            });
            return ids;
        }

        public long status(int status) {
            return byStatus.getOrDefault(status, 0L);
        }

        public long path(String path) {
            return byPath.getOrDefault(path, 0L);
        }

        public long model(String model) {
            return byModel.getOrDefault(model, 0L);
        }
    }

    void request(String path) {
        requests.increment();
        byPath.computeIfAbsent(path, p -> new LongAdder()).increment();
    }

    /** A call to {@code model} arrived. */
    void model(String model) {
        byModel.computeIfAbsent(model, m -> new LongAdder()).increment();
        gaps.call(System.nanoTime());
    }

    /** A batch was created, in {@code protocol}. */
    void batch(String protocol) {
        batches.increment();
        batchesByProtocol.computeIfAbsent(protocol, p -> new LongAdder()).increment();
    }

    /** A request in a batch was answered, and billed, as its batch was processed. */
    void batchBilled(String protocol, String customId, String model) {
        batchBilled.increment();
        batchBilledByProtocol.computeIfAbsent(protocol, p -> new LongAdder()).increment();
        billedByCustomId.computeIfAbsent(customId, c -> new LongAdder()).increment();
        byModel.computeIfAbsent(model, m -> new LongAdder()).increment();
    }

    /** What a request in a batch that was billed reported as its usage. */
    void batchTokens(String customId, Tokens usage) {
        billedTokensByCustomId.merge(customId, usage, (a, b) -> new Tokens(a.input() + b.input(),
                a.output() + b.output(), a.cacheRead() + b.cacheRead(), a.cacheWrite() + b.cacheWrite()));
    }

    /** The tokens billed for each custom_id in a batch so far, summed over every time it was billed. */
    Map<String, Tokens> billedTokensByCustomId() {
        return new TreeMap<>(billedTokensByCustomId);
    }

    /** How many times each custom_id was billed in a batch so far. */
    Map<String, Long> billedByCustomId() {
        return copy(billedByCustomId);
    }

    void repair() {
        repairs.increment();
    }

    /** A request the token limits let through ended, having been charged {@code input} and written {@code output}. */
    void tokens(long input, long output) {
        inputTokens.add(input);
        outputTokens.add(output);
    }

    /** The token limits let in a request of {@code input} tokens whose answer writes {@code output}. */
    void letIn(long input, long output) {
        inputLetIn.add(input);
        outputLetIn.add(output);
    }

    void status(int status) {
        byStatus.computeIfAbsent(status, s -> new LongAdder()).increment();
    }

    Snapshot snapshot() {
        long now = System.nanoTime();
        return new Snapshot(requests.sum(), copy(byPath), copy(byStatus), copy(byModel), repairs.sum(),
                inputTokens.sum(), outputTokens.sum(), inputLetIn.sum(), outputLetIn.sum(), gaps.sinceFirst(now),
                gaps.longest(now), gaps.firstGap(), gaps.longestLater(now), gaps.longestLaterEnd(now),
                batches.sum(), batchBilled.sum(), copy(batchesByProtocol), copy(batchBilledByProtocol),
                copy(billedByCustomId));
    }

    private static <K> Map<K, Long> copy(Map<K, LongAdder> counters) {
        Map<K, Long> out = new TreeMap<>();
        counters.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    /** When calls arrived: the first, the last, the time between the first two, and the longest between two. */
    static final class Gaps {

        private long calls; // guarded by this
        private long first; // guarded by this
        private long last; // guarded by this
        private long firstGap = -1; // guarded by this
        private long longest; // guarded by this
        private long longestLater; // guarded by this; leaving out the first gap
        private long longestLaterEnd = -1; // guarded by this; when it ended, from the first call

        synchronized void call(long nanos) {
            if (calls == 0) {
                first = nanos;
            } else {
                long gap = nanos - last;
                longest = Math.max(longest, gap);
                if (calls == 1) {
                    firstGap = gap;
                } else if (gap > longestLater) {
                    longestLater = gap;
                    longestLaterEnd = nanos - first;
                }
            }
            last = nanos;
            calls++;
        }

        synchronized long firstGap() {
            return firstGap;
        }

        synchronized long longestLater(long now) {
            return calls > 1 ? Math.max(longestLater, now - last) : 0;
        }

        synchronized long longestLaterEnd(long now) {
            if (calls <= 1) {
                return -1;
            }
            return now - last > longestLater ? now - first : longestLaterEnd;
        }

        synchronized long sinceFirst(long now) {
            return calls > 0 ? now - first : -1;
        }

        /** The gap still open counts too: a provider nobody calls any more is a gap that has not ended. */
        synchronized long longest(long now) {
            return calls > 0 ? Math.max(longest, now - last) : 0;
        }
    }
}
