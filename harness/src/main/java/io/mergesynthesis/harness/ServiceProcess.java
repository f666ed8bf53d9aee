package io.mergesynthesis.harness;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The product's server in a process of its own: {@code java -jar service/target/merge-synthesis.jar server
 * config.yml} on free loopback ports, pointed at a given database, with everything it prints in one log file.
 * Whoever starts it talks to it only as an operator would: HTTP on its two ports, signals, its log, and rows in
 * the database.
 *
 * <p>One instance may be started again after it ended (each start is a new process, on the same ports). Every
 * process started is killed by a shutdown hook if it is still running when this JVM ends. The benchmark's and the
 * drills' replicas extend it with what only they need.
 */
public class ServiceProcess {

    private static final Set<Process> RUNNING = ConcurrentHashMap.newKeySet();
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int TAIL_LINES = 40;
    /**
     * JVM flags every server of a test run starts with, from the system property {@code harness.jvmFlags} (the
     * build sets it for its test runs; a benchmark run by hand sets nothing, so its figures are a plain JVM's).
     */
    private static final List<String> TEST_RUN_FLAGS =
            List.of(System.getProperty("harness.jvmFlags", "").trim().split("\\s+")).stream()
                    .filter(flag -> !flag.isEmpty())
                    .toList();
    /** Whether the servers of this run map their classes from a {@link ReplicaClassArchive} (a test run's do). */
    private static final boolean CLASS_ARCHIVE = Boolean.getBoolean("harness.classArchive");

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ServiceProcess::killAll, "kill-service-processes"));
    }

    private final String name;
    private final Path root;
    private final Path log;
    private final boolean appendLog;
    private final List<String> jvmFlags;
    private final Map<String, String> environment;
    private volatile int httpPort;
    private volatile int adminPort;
    // Volatile: one thread may restart the process while another (a load feed, say) looks at it.
    private volatile Process process;
    private long logOffsetAtStart;

    protected ServiceProcess(Builder builder) {
        this.name = builder.name;
        this.root = builder.root;
        this.log = builder.log;
        this.appendLog = builder.appendLog;
        List<String> flags = new ArrayList<>(builder.jvmFlags);
        if (builder.classArchive) {
            ReplicaClassArchive.path(builder.root).ifPresent(archive -> flags.add("-XX:SharedArchiveFile=" + archive));
        }
        this.jvmFlags = List.copyOf(flags);
        this.environment = new LinkedHashMap<>(builder.environment);
        this.httpPort = freePort();
        this.adminPort = freePort();
    }

    /** A server named {@code name} (in errors) from the checkout at {@code root}, logging to {@code log}. */
    public static Builder builder(String name, Path root, Path log) {
        return new Builder(name, root, log);
    }

    /** What the process is started with; the database, heap and settings are the caller's to choose. */
    public static final class Builder {

        private final String name;
        private final Path root;
        private final Path log;
        private boolean appendLog;
        private boolean classArchive = CLASS_ARCHIVE;
        private final List<String> jvmFlags = new ArrayList<>();
        private final Map<String, String> environment = new LinkedHashMap<>();

        private Builder(String name, Path root, Path log) {
            this.name = name;
            this.root = root;
            this.log = log;
            jvmFlags.addAll(TEST_RUN_FLAGS);
        }

        public Builder heap(String maximum) {
            jvmFlags.add("-Xmx" + maximum);
            return this;
        }

        /** Starts without the run's class archive: for the server that makes it. */
        Builder withoutClassArchive() {
            this.classArchive = false;
            return this;
        }

        /** A flag for the JVM itself ({@code -XX:...}), given before the jar. */
        public Builder jvmFlag(String flag) {
            jvmFlags.add(flag);
            return this;
        }

        /** A Dropwizard setting without the {@code dw.} prefix, e.g. {@code synthesis.workers=4}. */
        public Builder setting(String key, String value) {
            jvmFlags.add("-Ddw." + key + "=" + value);
            return this;
        }

        public Builder settings(Map<String, String> values) {
            values.forEach(this::setting);
            return this;
        }

        /** The database the server runs on, as the {@code DATABASE_*} variables the shipped config reads. */
        public Builder database(String url, String user, String password) {
            environment.put("DATABASE_URL", url);
            environment.put("DATABASE_USER", user);
            environment.put("DATABASE_PASSWORD", password);
            return this;
        }

        /** More variables the shipped {@code config.yml} reads ({@code SYNTHESIZER}, a provider's URL), set last. */
        public Builder environment(Map<String, String> values) {
            environment.putAll(values);
            return this;
        }

        /** Appends each start's output to the log, so that one log tells a restarted server's whole story. */
        public Builder appendLog() {
            this.appendLog = true;
            return this;
        }

        /** The server, not started yet; its ports are chosen now. */
        public ServiceProcess build() {
            return new ServiceProcess(this);
        }
    }

    /**
     * Runs one of the product's commands ({@code db migrate}, ...) to its end, with its standard error in
     * {@code log}, and returns its standard output.
     */
    public static String runCommand(Path root, Map<String, String> environment, Path log, String... args)
            throws IOException {
        Files.createDirectories(log.getParent());
        ProcessBuilder builder = new ProcessBuilder(Product.commandLine(root, TEST_RUN_FLAGS, List.of(args)))
                .directory(root.toFile())
                .redirectError(log.toFile());
        builder.environment().putAll(environment);
        Process command = builder.start();
        try {
            String out = new String(command.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!command.waitFor(5, TimeUnit.MINUTES)) {
                command.destroyForcibly();
                throw new IOException(String.join(" ", args) + " did not finish within 5 minutes");
            }
            if (command.exitValue() != 0) {
                throw new IOException(String.join(" ", args) + " failed with status " + command.exitValue()
                        + "; see " + log);
            }
            return out;
        } catch (InterruptedException e) {
            command.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** Starts the process and waits until {@code /healthcheck} answers 200. */
    public ServiceProcess start(Duration timeout) {
        launch();
        awaitHealthy(timeout);
        return this;
    }

    /** Starts the process without waiting for it to become healthy. */
    public ServiceProcess launch() {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException(name + " is already running");
        }
        try {
            Files.createDirectories(log.getParent());
            logOffsetAtStart = appendLog && Files.exists(log) ? Files.size(log) : 0;
            ProcessBuilder builder = new ProcessBuilder(Product.commandLine(root, jvmFlags, List.of("server")))
                    .directory(root.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(appendLog ? ProcessBuilder.Redirect.appendTo(log.toFile())
                            : ProcessBuilder.Redirect.to(log.toFile()));
            Map<String, String> env = builder.environment();
            env.put("HTTP_PORT", Integer.toString(httpPort));
            env.put("ADMIN_PORT", Integer.toString(adminPort));
            env.put("HTTP_BIND_HOST", "127.0.0.1");
            env.put("ADMIN_BIND_HOST", "127.0.0.1");
            env.putAll(environment);
            process = builder.start();
            RUNNING.add(process);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
        return this;
    }

    /** Waits until {@code /healthcheck} answers 200; fails with the log's end if the process dies or it times out. */
    public void awaitHealthy(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive() && lostItsPorts()) {
                // Another process took a port between our pick and the server's bind: pick again.
                httpPort = freePort();
                adminPort = freePort();
                launch();
                continue;
            }
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with status " + process.exitValue()
                        + " before it was healthy; its log ends with:\n" + logTail(TAIL_LINES));
            }
            if (healthStatus() == 200) {
                return;
            }
            sleep(100);
        }
        throw new IllegalStateException(name + " was not healthy within " + timeout.toSeconds()
                + " s; its log ends with:\n" + logTail(TAIL_LINES));
    }

    /** What {@code GET /healthcheck} answered: its status (-1 when nothing answered) and its JSON body. */
    public record Health(int status, String body) {

        /** True when the body reports the named check ({@code postgresql}, {@code synthesis-pool}) healthy. */
        public boolean healthy(String check) {
            try {
                return JSON.readTree(body).path(check).path("healthy").asBoolean(false);
            } catch (IOException e) {
                return false;
            }
        }
    }

    /** {@code GET /healthcheck} on the admin port, with the body naming each check's state. */
    public Health health() {
        HttpResponse<String> response = get(admin("/healthcheck"), Duration.ofSeconds(5));
        return response == null ? new Health(-1, "") : new Health(response.statusCode(), response.body());
    }

    /** The status of {@code GET /healthcheck} on the admin port, or -1 when nothing answers. */
    public int healthStatus() {
        return health().status();
    }

    /** The admin port's {@code /metrics} text, or an empty string when it does not answer 200. */
    public String metrics() {
        HttpResponse<String> response = get(admin("/metrics"), Duration.ofSeconds(10));
        return response != null && response.statusCode() == 200 ? response.body() : "";
    }

    private static HttpResponse<String> get(URI uri, Duration timeout) {
        try {
            return HTTP.send(HttpRequest.newBuilder(uri).timeout(timeout).build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** SIGKILL: the process dies at once, in the middle of whatever it was doing. */
    public void kill() {
        process.destroyForcibly();
        waitFor(Duration.ofSeconds(30));
    }

    /**
     * SIGTERM: a graceful stop. Returns how long the process took to exit, or empty if it was still running
     * after {@code patience} (it is then killed).
     */
    public Optional<Duration> terminate(Duration patience) {
        long started = System.nanoTime();
        process.destroy();
        boolean exited = waitFor(patience);
        if (!exited) {
            process.destroyForcibly();
            waitFor(Duration.ofSeconds(30));
            return Optional.empty();
        }
        return Optional.of(Duration.ofNanos(System.nanoTime() - started));
    }

    /** Stops the process if it runs: SIGTERM, then SIGKILL after {@code patience}. */
    public void stop(Duration patience) {
        if (isAlive()) {
            terminate(patience);
        }
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    public int exitValue() {
        return process.exitValue();
    }

    public long pid() {
        return process.pid();
    }

    public String name() {
        return name;
    }

    public URI api(String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + httpPort + pathAndQuery);
    }

    public URI admin(String path) {
        return URI.create("http://127.0.0.1:" + adminPort + path);
    }

    /** What the current process has logged so far. */
    public String logSinceStart() {
        return logSince(logOffsetAtStart);
    }

    /** A place in the log, for {@link #logSince(long)}: what has been logged so far, in characters. */
    public long logMark() {
        return logText().length();
    }

    /** What has been logged since {@code mark} (from {@link #logMark()}). */
    public String logSince(long mark) {
        String text = logText();
        return text.substring((int) Math.min(mark, text.length()));
    }

    /** Everything in the log, over all the processes that wrote to it. */
    public String logText() {
        try {
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String logTail(int lines) {
        List<String> all = logText().lines().toList();
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }

    private boolean waitFor(Duration patience) {
        try {
            boolean exited = process.waitFor(patience.toMillis(), TimeUnit.MILLISECONDS);
            if (exited) {
                RUNNING.remove(process);
            }
            return exited;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + name, e);
        }
    }

    /** True when the process that just ended could not bind one of its ports. */
    private boolean lostItsPorts() {
        return logSinceStart().contains("Failed to bind to /127.0.0.1:");
    }

    /** Kills every process started here that still runs: for a run that failed half way. */
    public static void killAll() {
        for (Process running : List.copyOf(RUNNING)) {
            running.destroyForcibly();
            RUNNING.remove(running);
        }
    }

    /**
     * A loopback port free at this moment and not handed out before by this JVM: the operating system may offer
     * the port it just gave back to the next ask, and two servers picked in a row must not share one.
     */
    public static int freePort() {
        for (int tries = 0; tries < 100; tries++) {
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                if (HANDED_OUT.add(socket.getLocalPort())) {
                    return socket.getLocalPort();
                }
            } catch (IOException e) {
                throw new UncheckedIOException("no free loopback port", e);
            }
        }
        throw new IllegalStateException("no loopback port left that was not handed out already");
    }

    public static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
