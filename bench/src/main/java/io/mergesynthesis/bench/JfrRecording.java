package io.mergesynthesis.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Java Flight Recording of a running replica, started and stopped from outside with the JDK's {@code jcmd}
 * (no flag on the replica), with the {@code profile} settings: CPU samples every 10 ms per thread and
 * allocation samples. Read it with {@code jfr print} or {@code jfr summary}.
 */
final class JfrRecording implements AutoCloseable {

    private static final String NAME = "bench";

    private final long pid;
    private final Path file;

    private JfrRecording(long pid, Path file) {
        this.pid = pid;
        this.file = file;
    }

    /** Starts recording the process {@code pid}; the recording is written to {@code file} when closed. */
    static JfrRecording start(long pid, Path file) throws IOException, InterruptedException {
        // -Dbench.jfr.settings names another settings file, for example one that samples more often.
        jcmd(pid, "JFR.start", "name=" + NAME, "settings=" + System.getProperty("bench.jfr.settings", "profile"));
        return new JfrRecording(pid, file.toAbsolutePath());
    }

    Path file() {
        return file;
    }

    /** Stops the recording and writes it out. */
    @Override
    public void close() throws IOException, InterruptedException {
        jcmd(pid, "JFR.stop", "name=" + NAME, "filename=" + file);
    }

    private static void jcmd(long pid, String... command) throws IOException, InterruptedException {
        List<String> line = new ArrayList<>();
        line.add(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString());
        line.add(Long.toString(pid));
        line.addAll(List.of(command));
        Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0 || output.contains("Could not")) {
            throw new IOException("jcmd " + String.join(" ", command) + " failed: " + output.strip());
        }
    }
}
