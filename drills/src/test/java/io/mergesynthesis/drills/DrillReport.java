package io.mergesynthesis.drills;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import io.mergesynthesis.harness.Product;

/**
 * What a drill did and what it found, line by line: printed as it happens and written to
 * {@code drills/target/drills/<drill>/report.txt} at the end, so a run leaves its figures behind.
 */
final class DrillReport {

    private final String drill;
    private final List<String> lines = new ArrayList<>();
    private final long started = System.nanoTime();

    DrillReport(String drill) {
        this.drill = drill;
        line("started at " + Instant.now());
    }

    /** Records (and prints) one line, prefixed with the drill's name and the seconds since it started. */
    synchronized void line(String text) {
        String line = String.format("[drill %s %6.1fs] %s", drill, (System.nanoTime() - started) / 1e9, text);
        lines.add(line);
        System.out.println(line);
    }

    /** A figure the drill measured: "name: value". */
    void figure(String name, Object value) {
        line(name + ": " + value);
    }

    /** Writes every line so far to the drill's report file. */
    synchronized Path write() {
        Path file = Product.workDirectory("drills").resolve(drill).resolve("report.txt");
        try {
            Files.createDirectories(file.getParent());
            Files.write(file, lines, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }
}
