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
import java.util.UUID;

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

    /** Calls started per conflict. */
    Map<UUID, Integer> callsPerConflict() {
        Map<UUID, Integer> calls = new HashMap<>();
        entries().stream().filter(e -> e.event().equals("start")).forEach(e -> calls.merge(e.conflictId(), 1,
                Integer::sum));
        return calls;
    }
}
