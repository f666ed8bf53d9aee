package io.mergesynthesis.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
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
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One replica of the product: {@code java -jar service/target/merge-synthesis.jar server config.yml} in a process
 * of its own, on free loopback ports, pointed at the benchmark database. The benchmark only ever talks to it the
 * way an operator or a client would: HTTP on its two ports and rows in the shared database.
 *
 * <p>Every replica started is remembered until it is closed, so that a shutdown hook can stop the ones a failed
 * run left behind.
 */
final class Replica implements AutoCloseable {

    private static final Set<Replica> RUNNING = ConcurrentHashMap.newKeySet();
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final String name;
    private final Process process;
    private final int httpPort;
    private final int adminPort;
    private final Path log;

    private Replica(String name, Process process, int httpPort, int adminPort, Path log) {
        this.name = name;
        this.process = process;
        this.httpPort = httpPort;
        this.adminPort = adminPort;
        this.log = log;
    }

    /**
     * Starts a replica and waits until its {@code /healthcheck} answers 200.
     *
     * @param overrides Dropwizard {@code -Ddw.*} settings, without the prefix ({@code synthesis.workers=4})
     * @throws ReplicaRefusedToStart when the process ends or stays unhealthy; the message carries its log's end
     */
    static Replica start(String name, Options options, BenchDatabase db, Map<String, String> overrides,
                         String heap) throws ReplicaRefusedToStart {
        return start(name, options, db, overrides, Map.of(), heap);
    }

    /**
     * As {@link #start(String, Options, BenchDatabase, Map, String)}, with more environment variables for the
     * process ({@code SYNTHESIZER=llm}, a provider's base URL), set after the database and port ones.
     */
    static Replica start(String name, Options options, BenchDatabase db, Map<String, String> overrides,
                         Map<String, String> environment, String heap) throws ReplicaRefusedToStart {
        int httpPort = freePort();
        int adminPort = freePort();
        Path log = options.out().resolve("logs").resolve(name + ".log");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx" + heap);
        command.add("-Ddw.database.properties.ApplicationName=" + applicationName(name));
        command.add("-Ddw.loadSamples=false");
        overrides.forEach((key, value) -> command.add("-Ddw." + key + "=" + value));
        command.add("-jar");
        command.add(ProductFiles.jar(options.productRoot()).toString());
        command.add("server");
        command.add(ProductFiles.config(options.productRoot()).toString());
        Process process;
        try {
            Files.createDirectories(log.getParent());
            ProcessBuilder builder = new ProcessBuilder(command)
                    .directory(options.productRoot().toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            Map<String, String> env = builder.environment();
            env.put("DATABASE_URL", db.url());
            env.put("DATABASE_USER", db.user());
            env.put("DATABASE_PASSWORD", db.password());
            env.put("HTTP_PORT", Integer.toString(httpPort));
            env.put("ADMIN_PORT", Integer.toString(adminPort));
            env.put("HTTP_BIND_HOST", "127.0.0.1");
            env.put("ADMIN_BIND_HOST", "127.0.0.1");
            env.putAll(environment);
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start replica " + name, e);
        }
        Replica replica = new Replica(name, process, httpPort, adminPort, log);
        RUNNING.add(replica);
        try {
            replica.awaitHealthy();
        } catch (ReplicaRefusedToStart e) {
            replica.close();
            throw e;
        }
        return replica;
    }

    /** The {@code application_name} this replica's connections carry in {@code pg_stat_activity}. */
    static String applicationName(String replicaName) {
        return "bench-" + replicaName;
    }

    String name() {
        return name;
    }

    String applicationName() {
        return applicationName(name);
    }

    long pid() {
        return process.pid();
    }

    URI api(String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + httpPort + pathAndQuery);
    }

    URI admin(String path) {
        return URI.create("http://127.0.0.1:" + adminPort + path);
    }

    /** The admin port's {@code /metrics} text, or an empty string when it does not answer 200. */
    String metrics() {
        try {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(admin("/metrics"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? response.body() : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    private void awaitHealthy() throws ReplicaRefusedToStart {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new ReplicaRefusedToStart(name + " exited with status " + process.exitValue()
                        + " before it was healthy; its log ends with:\n" + logTail(30));
            }
            try {
                HttpResponse<Void> response = HTTP.send(HttpRequest.newBuilder(admin("/healthcheck"))
                        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding());
                if (response.statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ReplicaRefusedToStart("interrupted while waiting for " + name);
            }
            sleep(100);
        }
        throw new ReplicaRefusedToStart(name + " was not healthy after " + START_TIMEOUT.toSeconds()
                + " s; its log ends with:\n" + logTail(30));
    }

    String logTail(int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Asks the replica to stop (SIGTERM: a graceful shutdown), and kills it if it has not within 20 s. */
    @Override
    public void close() {
        RUNNING.remove(this);
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** Kills whatever replicas are still running: for the JVM's shutdown hook. */
    static void killAll() {
        for (Replica replica : List.copyOf(RUNNING)) {
            replica.process.destroyForcibly();
            RUNNING.remove(replica);
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** A replica that could not be brought up; the message says why, with the end of its log. */
    static final class ReplicaRefusedToStart extends Exception {
        ReplicaRefusedToStart(String message) {
            super(message);
        }
    }
}
