package io.mergesynthesis.service.web;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * A real Keycloak on a loopback port, in dev mode with an in-memory database, with the realm of
 * {@code keycloak/merge-synthesis-realm.json} imported: a confidential client for the console that must use PKCE
 * S256, and people whose realm roles and {@code org_id} attribute its mappers put into the ID token. Keycloak's
 * distribution is unpacked by the build (see service/pom.xml); it needs Java 21 or newer, found under
 * {@code /usr/lib/jvm} unless {@code keycloak.java.home} names one, while the service stays on Java 17.
 */
final class Keycloak implements AutoCloseable {

    static final String REALM = "merge-synthesis";
    static final String CLIENT_ID = "merge-synthesis-console";
    static final String CLIENT_SECRET = "console-secret-for-tests-only";
    /** The org of the realm's org admin and viewer. */
    static final String ORG = "7d1e4c1a-3b52-4c8e-9a0f-5e2b6c9d8a41";
    /** Keycloak's first start in dev mode builds itself: allow for it on a small machine. */
    static final Duration STARTUP = Duration.ofMinutes(4);

    private final Process process;
    private final int port;
    private final Path log;

    private Keycloak(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    static Keycloak start() {
        Path home = Path.of(System.getProperty("keycloak.home", "target/keycloak/keycloak-unknown"));
        if (!Files.isExecutable(home.resolve("bin/kc.sh"))) {
            throw new IllegalStateException("Keycloak is not unpacked at " + home + ": run these tests with "
                    + "mvn verify, which unpacks it (service/pom.xml, unpack-keycloak)");
        }
        Path java = javaHome().orElseThrow(() -> new IllegalStateException("Keycloak needs Java 21 or newer: "
                + "install one under /usr/lib/jvm or name it with -Dkeycloak.java.home"));
        try {
            Path imports = home.resolve("data/import");
            Files.createDirectories(imports);
            try (InputStream realm = Keycloak.class.getResourceAsStream("/keycloak/merge-synthesis-realm.json")) {
                Files.copy(realm, imports.resolve("merge-synthesis-realm.json"), StandardCopyOption.REPLACE_EXISTING);
            }
            int port = freePort();
            int management = freePort();
            Path log = Files.createTempFile("keycloak-", ".log");
            ProcessBuilder builder = new ProcessBuilder(home.resolve("bin/kc.sh").toString(), "start-dev",
                    "--import-realm", "--db=dev-mem", "--http-host=127.0.0.1", "--http-port=" + port,
                    "--http-management-port=" + management, "--hostname-strict=false")
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            builder.environment().put("JAVA_HOME", java.toString());
            builder.environment().put("JAVA_OPTS_KC_HEAP", "-Xms64m -Xmx512m");
            // A first-tier compiler, as for the product's servers in a test run (kc.sh chooses its own collector).
            builder.environment().put("JAVA_OPTS_APPEND", "-XX:TieredStopAtLevel=1");
            Keycloak keycloak = new Keycloak(builder.start(), port, log);
            keycloak.awaitReady();
            return keycloak;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The realm's issuer, as its discovery document names it. */
    String issuer() {
        return "http://127.0.0.1:" + port + "/realms/" + REALM;
    }

    /** Waits for the realm's discovery document: Keycloak answers it once the realm is imported. */
    private void awaitReady() {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        URI discovery = URI.create(issuer() + "/.well-known/openid-configuration");
        Instant deadline = Instant.now().plus(STARTUP);
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new IllegalStateException("Keycloak stopped while starting:\n" + tail());
            }
            try {
                HttpResponse<Void> answer = http.send(HttpRequest.newBuilder(discovery)
                        .timeout(Duration.ofSeconds(2)).GET().build(), HttpResponse.BodyHandlers.discarding());
                if (answer.statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // Not listening yet.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            try {
                // The one pause here: between polls of a process that says nothing else about its readiness.
                process.waitFor(250, java.util.concurrent.TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        close();
        throw new IllegalStateException("Keycloak did not serve " + discovery + " within " + STARTUP + ":\n" + tail());
    }

    private String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    @Override
    public void close() {
        // kc.sh starts Keycloak's JVM as its child: stop both.
        Stream.concat(process.descendants(), Stream.of(process.toHandle()))
                .sorted(Comparator.comparing(ProcessHandle::pid).reversed())
                .forEach(ProcessHandle::destroy);
        try {
            process.onExit().get(30, java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception e) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
        try {
            Files.deleteIfExists(log);
        } catch (IOException e) {
            // A log left in the temporary folder is harmless.
        }
    }

    /** A JDK of version 21 or newer: the one named, else the newest under /usr/lib/jvm. */
    static Optional<Path> javaHome() {
        String named = System.getProperty("keycloak.java.home");
        if (named != null && !named.isBlank()) {
            return Optional.of(Path.of(named));
        }
        if (Runtime.version().feature() >= 21) {
            return Optional.of(Path.of(System.getProperty("java.home")));
        }
        try (Stream<Path> jdks = Files.list(Path.of("/usr/lib/jvm"))) {
            return jdks.filter(jdk -> Files.isExecutable(jdk.resolve("bin/java")))
                    .filter(jdk -> feature(jdk) >= 21)
                    .max(Comparator.comparingInt(Keycloak::feature));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static int feature(Path jdk) {
        Properties release = new Properties();
        try (InputStream in = Files.newInputStream(jdk.resolve("release"))) {
            release.load(in);
        } catch (IOException e) {
            return 0;
        }
        String version = release.getProperty("JAVA_VERSION", "\"0\"").replace("\"", "");
        try {
            return Integer.parseInt(version.split("[.+-]")[0]);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
