package io.mergesynthesis.drills;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * The synthesizer call journal the replicas share ({@code synthesis.faults.callLog}): a line when a call starts
 * and one when it ends, {@code <epoch ms> <replica owner> <conflict id> start|ok|failed|interrupted}. Written by
 * the product in single append-mode writes, so it survives kill -9 of any replica.
 */
final class CallLog {

    record Entry(long epochMillis, String owner, UUID conflictId, String event) {
    }

    private final Path file;

    CallLog(Path file) {
        this.file = file;
    }

    Path file() {
        return file;
    }

    /** The setting that makes a replica write to this journal. */
    Map<String, String> setting() {
        return Map.of("synthesis.faults.callLog", file.toString());
    }

    List<Entry> entries() {
        if (!Files.exists(file)) {
            return List.of();
        }
        List<Entry> entries = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                String[] parts = line.split(" ");
                if (parts.length != 4) {
                    throw new IllegalStateException("malformed call journal line in " + file + ": " + line);
                }
                entries.add(new Entry(Long.parseLong(parts[0]), parts[1], UUID.fromString(parts[2]), parts[3]));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return entries;
    }

    /** Calls started (one {@code start} line each). */
    long calls() {
        return entries().stream().filter(e -> e.event().equals("start")).count();
    }

    /**
     * How one process's calls went (or every process's, for a null owner). A call that started and wrote no end
     * was cut short by its process's death, or is still running.
     */
    record Tally(long started, long ok, long failed, long interrupted) {

        long unfinished() {
            return started - ok - failed - interrupted;
        }

        @Override
        public String toString() {
            return started + " started, " + ok + " ok, " + failed + " failed, " + interrupted + " interrupted, "
                    + unfinished() + " unfinished";
        }
    }

    /** @param owner a lease owner (one process), or null for all of them */
    Tally tally(String owner) {
        Map<String, Long> events = new HashMap<>();
        entries().stream().filter(e -> owner == null || e.owner().equals(owner))
                .forEach(e -> events.merge(e.event(), 1L, Long::sum));
        return new Tally(events.getOrDefault("start", 0L), events.getOrDefault("ok", 0L),
                events.getOrDefault("failed", 0L), events.getOrDefault("interrupted", 0L));
    }

    /**
     * Calls of {@code owner} that were running at {@code epochMillis}: started at or before it and ended after
     * it, or never ended.
     */
    long runningAt(String owner, long epochMillis) {
        Map<UUID, Long> started = new HashMap<>();
        long running = 0;
        for (Entry e : entries()) {
            if (!e.owner().equals(owner)) {
                continue;
            }
            if (e.event().equals("start")) {
                started.put(e.conflictId(), e.epochMillis());
            } else {
                Long start = started.remove(e.conflictId());
                if (start != null && start <= epochMillis && e.epochMillis() > epochMillis) {
                    running++;
                }
            }
        }
        return running + started.values().stream().filter(start -> start <= epochMillis).count();
    }

    /**
     * Calls of {@code owner} that were made again later by another process: calls whose result their process
     * did not store (the call failed, the process died first, or it lost the lease), so that the conflict was
     * called for once more.
     */
    long repeatedElsewhere(String owner) {
        Map<UUID, Long> lastStartByOthers = new HashMap<>();
        List<Entry> starts = entries().stream().filter(e -> e.event().equals("start")).toList();
        starts.stream().filter(e -> !e.owner().equals(owner))
                .forEach(e -> lastStartByOthers.merge(e.conflictId(), e.epochMillis(), Math::max));
        return starts.stream().filter(e -> e.owner().equals(owner))
                .filter(e -> lastStartByOthers.getOrDefault(e.conflictId(), Long.MIN_VALUE) >= e.epochMillis())
                .count();
    }

    /** The conflicts {@code owner} started a call for. */
    Set<UUID> calledBy(String owner) {
        return entries().stream().filter(e -> e.owner().equals(owner) && e.event().equals("start"))
                .map(Entry::conflictId).collect(Collectors.toSet());
    }

    /** Calls started per conflict. */
    Map<UUID, Integer> callsPerConflict() {
        Map<UUID, Integer> calls = new HashMap<>();
        entries().stream().filter(e -> e.event().equals("start")).forEach(e -> calls.merge(e.conflictId(), 1,
                Integer::sum));
        return calls;
    }
}
