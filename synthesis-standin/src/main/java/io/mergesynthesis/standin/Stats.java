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
    private final Map<String, LongAdder> byPath = new ConcurrentHashMap<>();
    private final Map<Integer, LongAdder> byStatus = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> byModel = new ConcurrentHashMap<>();

    /**
     * A consistent-enough copy for assertions and the stats endpoint.
     *
     * @param repairs      requests that carried the merge check's findings about an earlier answer
     * @param inputTokens  what the token limits were charged for input, by the answers let through them
     * @param outputTokens what those answers wrote, as the output limits kept it
     */
    public record Snapshot(long requests, Map<String, Long> byPath, Map<Integer, Long> byStatus,
                           Map<String, Long> byModel, long repairs, long inputTokens, long outputTokens) {

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

    void model(String model) {
        byModel.computeIfAbsent(model, m -> new LongAdder()).increment();
    }

    void repair() {
        repairs.increment();
    }

    /** A request the token limits let through ended, having been charged {@code input} and written {@code output}. */
    void tokens(long input, long output) {
        inputTokens.add(input);
        outputTokens.add(output);
    }

    void status(int status) {
        byStatus.computeIfAbsent(status, s -> new LongAdder()).increment();
    }

    Snapshot snapshot() {
        return new Snapshot(requests.sum(), copy(byPath), copy(byStatus), copy(byModel), repairs.sum(),
                inputTokens.sum(), outputTokens.sum());
    }

    private static <K> Map<K, Long> copy(Map<K, LongAdder> counters) {
        Map<K, Long> out = new TreeMap<>();
        counters.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }
}
