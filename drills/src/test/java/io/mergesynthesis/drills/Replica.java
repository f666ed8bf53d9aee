package io.mergesynthesis.drills;

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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One replica: {@code java -jar service/target/merge-synthesis.jar server config.yml} in a process of its own, on
 * free loopback ports, pointed at the drill's database. A drill talks to it only as an operator would: HTTP on its
 * two ports, signals, its log, and rows in the database.
 *
 * <p>A replica keeps its name across restarts (its log is appended to); each start is a new process with a new
 * lease owner. Every process started is killed by a shutdown hook if a drill leaves it running.
 */
final class Replica {

    private static final Set<Process> RUNNING = ConcurrentHashMap.newKeySet();
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern POOL_STARTED = Pattern.compile("Synthesis pool (\\S+) started");

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(Process::destroyForcibly)));
    }

    private final String name;
    private final DrillDatabase database;
    private final Map<String, String> settings;
    private final Map<String, String> environment;
    private final Path log;
    private volatile int httpPort;
    private volatile int adminPort;
    // Volatile: a drill may restart a replica on one thread while another (a load feed, say) looks at it.
    private volatile Process process;
    private long logOffsetAtStart;

    /**
     * @param settings Dropwizard settings without the {@code dw.} prefix, e.g. {@code synthesis.workers=4}
     */
    Replica(String name, DrillDatabase database, Path directory, Map<String, String> settings) {
        this(name, database, directory, settings, Map.of());
    }

    /**
     * @param environment variables the shipped {@code config.yml} reads (e.g. {@code SYNTHESIZER}), set on top of
     *     the drill's own environment and the database and port variables
     */
    Replica(String name, DrillDatabase database, Path directory, Map<String, String> settings,
            Map<String, String> environment) {
        this.name = name;
        this.database = database;
        this.settings = new LinkedHashMap<>(settings);
        this.environment = new LinkedHashMap<>(environment);
        this.log = directory.resolve(name + ".log");
        this.httpPort = freePort();
        this.adminPort = freePort();
    }

    /** Starts the process and waits until {@code /healthcheck} answers 200. */
    Replica start() {
        launch();
        awaitHealthy(START_TIMEOUT);
        return this;
    }

    /** Starts the process without waiting for it to become healthy. */
    Replica launch() {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException(name + " is already running");
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.add("-Ddw.loadSamples=false");
        command.add("-Ddw.database.properties.ApplicationName=drill-" + name);
        settings.forEach((key, value) -> command.add("-Ddw." + key + "=" + value));
        command.add("-jar");
        command.add(Product.jar().toString());
        command.add("server");
        command.add(Product.config().toString());
        try {
            Files.createDirectories(log.getParent());
            logOffsetAtStart = Files.exists(log) ? Files.size(log) : 0;
            ProcessBuilder builder = new ProcessBuilder(command)
                    .directory(Product.root().toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            Map<String, String> env = builder.environment();
            env.putAll(environment);
            env.put("DATABASE_URL", database.url());
            env.put("DATABASE_USER", database.user());
            env.put("DATABASE_PASSWORD", "");
            env.put("HTTP_PORT", Integer.toString(httpPort));
            env.put("ADMIN_PORT", Integer.toString(adminPort));
            process = builder.start();
            RUNNING.add(process);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start replica " + name, e);
        }
        return this;
    }

    /** Waits until {@code /healthcheck} answers 200; fails with the log's end if the process dies or it times out. */
    void awaitHealthy(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive() && lostItsPorts()) {
                // Another process took a port between our pick and the replica's bind: pick again.
                httpPort = freePort();
                adminPort = freePort();
                launch();
                continue;
            }
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with status " + process.exitValue()
                        + " before it was healthy; its log ends with:\n" + logTail(40));
            }
            if (healthStatus() == 200) {
                return;
            }
            sleep(100);
        }
        throw new IllegalStateException(name + " was not healthy within " + timeout.toSeconds()
                + " s; its log ends with:\n" + logTail(40));
    }

    /** What {@code GET /healthcheck} answered: its status (-1 when nothing answered) and its JSON body. */
    record Health(int status, String body) {

        /** True when the body reports the named check ({@code postgresql}, {@code synthesis-pool}) healthy. */
        boolean healthy(String check) {
            try {
                return JSON.readTree(body).path(check).path("healthy").asBoolean(false);
            } catch (IOException e) {
                return false;
            }
        }
    }

    /** {@code GET /healthcheck} on the admin port, with the body naming each check's state. */
    Health health() {
        try {
            HttpResponse<String> response = HTTP.send(
                    HttpRequest.newBuilder(admin("/healthcheck")).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Health(response.statusCode(), response.body());
        } catch (IOException e) {
            return new Health(-1, "");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Health(-1, "");
        }
    }

    /** The status of {@code GET /healthcheck} on the admin port, or -1 when nothing answers. */
    int healthStatus() {
        try {
            return HTTP.send(HttpRequest.newBuilder(admin("/healthcheck")).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** SIGKILL: the process dies at once, in the middle of whatever it was doing. */
    void kill() {
        process.destroyForcibly();
        waitFor(Duration.ofSeconds(30));
    }

    /**
     * SIGTERM: a graceful stop. Returns how long the process took to exit, or empty if it was still running
     * after {@code patience} (it is then killed).
     */
    Optional<Duration> terminate(Duration patience) {
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

    boolean isAlive() {
        return process != null && process.isAlive();
    }

    int exitValue() {
        return process.exitValue();
    }

    long pid() {
        return process.pid();
    }

    String name() {
        return name;
    }

    URI api(String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + httpPort + pathAndQuery);
    }

    URI admin(String path) {
        return URI.create("http://127.0.0.1:" + adminPort + path);
    }

    /** The lease owner of the current process's pool, as its log announced it. */
    String owner() {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            Matcher matcher = POOL_STARTED.matcher(logSinceStart());
            if (matcher.find()) {
                return matcher.group(1);
            }
            sleep(100);
        }
        throw new IllegalStateException(name + " never logged its pool's start; its log ends with:\n" + logTail(40));
    }

    /** What the current process has logged so far. */
    String logSinceStart() {
        return logText().substring((int) Math.min(logOffsetAtStart, logText().length()));
    }

    /** A place in the log, for {@link #logSince(long)}: what has been logged so far, in characters. */
    long logMark() {
        return logText().length();
    }

    /** What this replica has logged since {@code mark} (from {@link #logMark()}). */
    String logSince(long mark) {
        String text = logText();
        return text.substring((int) Math.min(mark, text.length()));
    }

    /** Everything this replica has logged, over all its processes. */
    String logText() {
        try {
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Path logFile() {
        return log;
    }

    String logTail(int lines) {
        List<String> all = logText().lines().toList();
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }

    /** Stops the process if it runs: SIGTERM, then SIGKILL after 40 s. */
    void stop() {
        if (isAlive()) {
            terminate(Duration.ofSeconds(40));
        }
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

    /**
     * A loopback port free at this moment and not handed out before by this JVM: the operating system may offer
     * the port it just gave back to the next ask, and two replicas picked in a row must not share one.
     */
    static int freePort() {
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

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
