package io.mergesynthesis.service.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.Seed;
import io.mergesynthesis.service.testing.TestApp;
import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.testsupport.Wait;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * Every logger raised to TRACE through the admin port's log-level task (Jetty, the JDK's HTTP client and server,
 * our own code), then authenticated API requests, a token in a query string, and provider calls with a
 * recognisable fake key, one of them refused by a provider that quotes the key back. Nothing the configured
 * appenders wrote, application log or request logs, holds a token or the key.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SecretsInLogsTest {

    static final Path LOGS = Path.of("target", "secrets-in-logs", UUID.randomUUID().toString());
    static final String PROVIDER_KEY = "sk-ant-api03-" + random(30);
    static final String ADMIN_TOOLS_TOKEN = "tools-" + random(24);
    /** Credentials of no shape the redactor knows: only the header they travel in gives them away. */
    static final String BASIC_CREDENTIAL = Base64.getEncoder().encodeToString(("ops:" + random(18))
            .getBytes(StandardCharsets.UTF_8));
    static final String OPAQUE_API_KEY = "opaque-" + random(24);
    static final String COOKIE_VALUE = "crumb-" + random(24);
    static final List<String> TRACED = List.of("ROOT", "org.eclipse.jetty", "io.dropwizard", "org.glassfish",
            "jdk.httpclient.HttpClient", "jdk.internal.httpclient.debug", "com.sun.net.httpserver",
            "io.mergesynthesis");

    /** What logback's status printer writes while the application starts (it prints to standard output). */
    static final java.io.ByteArrayOutputStream STATUSES = statusPrinterCaptured();

    static final StandInProvider STAND_IN = start(new Behaviour().expectedKey(PROVIDER_KEY));
    static final TestApp APP = TestApp.onStandIn("logs-to-files-config.yml", STAND_IN, PROVIDER_KEY,
            ConfigOverride.config("synthesis.maxAttempts", "1"),
            ConfigOverride.config("adminTools.tokenSha256", sha256Hex(ADMIN_TOOLS_TOKEN)),
            ConfigOverride.config("logging.appenders[0].currentLogFilename", LOGS.resolve("app.log").toString()),
            ConfigOverride.config("server.requestLog.appenders[0].currentLogFilename",
                    LOGS.resolve("requests.log").toString()),
            ConfigOverride.config("server.requestLog.appenders[1].currentLogFilename",
                    LOGS.resolve("requests-verbose.log").toString()));
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    @AfterAll
    static void quietAgain() {
        ch.qos.logback.core.util.StatusPrinter.setPrintStream(System.out);
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        TRACED.forEach(name -> context.getLogger(name).setLevel(name.equals("ROOT") ? Level.INFO : null));
        STAND_IN.close();
    }

    @Test
    void noLevelWritesATokenOrAProviderKey() throws Exception {
        HttpResponse<String> raised = APP.send(HttpRequest.newBuilder(APP.adminUri("/tasks/log-level?"
                        + String.join("&", TRACED.stream().map(name -> "logger=" + name).toList()) + "&level=TRACE"))
                .header("Authorization", "Bearer " + ADMIN_TOOLS_TOKEN)
                .POST(HttpRequest.BodyPublishers.noBody()).build());
        assertThat(raised.statusCode()).as(raised.body()).isEqualTo(200);

        UUID org = UUID.randomUUID();
        String platform = APP.token(Role.PLATFORM, null);
        String admin = APP.token(Role.ORG_ADMIN, org);
        List<String> secrets = List.of(PROVIDER_KEY, ADMIN_TOOLS_TOKEN, platform, admin, BASIC_CREDENTIAL,
                OPAQUE_API_KEY, COOKIE_VALUE);

        // The admin tools' own token, now that Jetty logs every header it parses.
        HttpResponse<String> again = APP.send(HttpRequest.newBuilder(APP.adminUri(
                        "/tasks/log-level?logger=io.mergesynthesis&level=TRACE"))
                .header("Authorization", "Bearer " + ADMIN_TOOLS_TOKEN)
                .POST(HttpRequest.BodyPublishers.noBody()).build());
        assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
        assertThat(APP.send(HttpRequest.newBuilder(APP.uri("/v1/conflicts"))
                .header("Authorization", "Basic " + BASIC_CREDENTIAL)
                .header("x-api-key", OPAQUE_API_KEY)
                .header("Cookie", "theme=dark; remembered=" + COOKIE_VALUE + "; msw_session=" + admin)
                .GET().build()).statusCode()).isEqualTo(401);
        assertThat(APP.send(HttpRequest.newBuilder(APP.uri("/v1/conflicts"))
                .header("proxy-authorization", "Basic " + BASIC_CREDENTIAL)
                .header("AUTHORIZATION", "Digest username=\"ops\", response=\"" + OPAQUE_API_KEY + "\"")
                .GET().build()).statusCode()).isEqualTo(401);

        assertThat(APP.get(admin, "/v1/conflicts").statusCode()).isEqualTo(200);
        assertThat(APP.get(null, "/v1/conflicts?access_token=" + admin).statusCode()).isEqualTo(401);
        assertThat(APP.get(null, "/v1/conflicts?limit=5&api_key=" + PROVIDER_KEY + "&note=" + platform)
                .statusCode()).isEqualTo(401);
        assertThat(APP.send(HttpRequest.newBuilder(APP.uri("/v1/conflicts"))
                .header("X-Api-Key", PROVIDER_KEY).header("Cookie", "msw_session=" + admin)
                .GET().build()).statusCode()).isEqualTo(401);

        // One merge the provider writes, and one call it refuses, quoting the key back as providers do.
        UUID merged = Seed.conflict(APP, platform, org, "logs-1", "jira.create_issue");
        Wait.until("the first conflict merged", Duration.ofSeconds(60), () -> state(admin, merged).equals("done"));
        STAND_IN.behaviour().script(Behaviour.Scripted.raw(400, Map.of("Content-Type", "application/json"),
                "{\"error\":{\"type\":\"invalid_request_error\",\"message\":\"Incorrect API key provided: "
                        + PROVIDER_KEY + "\"}}"));
        UUID refused = Seed.conflict(APP, platform, org, "logs-2", "jira.create_issue");
        Wait.until("the refused call counted", Duration.ofSeconds(60), () -> state(admin, refused).equals("max_attempts_exceeded"));

        String marker = "end of the logged run " + UUID.randomUUID();
        LoggerFactory.getLogger(SecretsInLogsTest.class).warn(marker);
        Wait.until("the application log flushed", Duration.ofSeconds(60), () -> read("app.log").contains(marker));
        String lastRequest = "/v1/conflicts/" + refused;
        Wait.until("the request logs flushed", Duration.ofSeconds(60), () -> read("requests.log").contains(lastRequest)
                && read("requests-verbose.log").contains(lastRequest));

        String appLog = read("app.log");
        String requestLog = read("requests.log");
        String verboseLog = read("requests-verbose.log");
        Map<String, String> logs = Map.of("application log", appLog, "request log", requestLog,
                "verbose request log", verboseLog);
        List<String> leaks = new java.util.ArrayList<>();
        for (String secret : secrets) {
            for (String fragment : fragments(secret)) {
                logs.forEach((name, text) -> {
                    int at = text.indexOf(fragment);
                    if (at >= 0) {
                        leaks.add(name + ": ..." + text.substring(Math.max(0, at - 80),
                                Math.min(text.length(), at + 40)) + "...");
                    }
                });
            }
        }
        assertThat(leaks).as("secrets written to the logs").isEmpty();
        // The run did log at TRACE, headers and all, and the secrets went past the appenders.
        assertThat(appLog.contains("TRACE") && appLog.contains("Authorization: Bearer " + SecretRedactor.MARK))
                .as("the application log has TRACE lines with a redacted Authorization header").isTrue();
        assertThat(requestLog.contains("/v1/conflicts?access_token=" + SecretRedactor.MARK))
                .as("the request log has the query token redacted").isTrue();
        assertThat(verboseLog.contains("auth=Bearer " + SecretRedactor.MARK)
                && verboseLog.contains("param=" + SecretRedactor.MARK))
                .as("the verbose request log has the header and the parameter redacted").isTrue();
    }

    /**
     * Every run of 12 characters of the secret's random part: a log that cuts a token in two (Jetty's buffer
     * views show only a buffer's first and last bytes) must not show either half.
     */
    private static List<String> fragments(String secret) {
        String prefix = List.of("msk_", "sk-ant-api03-", "tools-", "opaque-", "crumb-").stream()
                .filter(secret::startsWith).findFirst().orElse("");
        String random = secret.substring(prefix.length());
        return java.util.stream.IntStream.rangeClosed(0, random.length() - 12)
                .mapToObj(i -> random.substring(i, i + 12)).toList();
    }

    @Test
    void theRequestLogStartsWithoutVersionWarnings() {
        String printed = STATUSES.toString(StandardCharsets.UTF_8);
        assertThat(printed).doesNotContain("WARN in LogbackAccessRequestLog").doesNotContain("are different");
        assertThat(read("app.log")).doesNotContain("request log: ");
    }

    private static java.io.ByteArrayOutputStream statusPrinterCaptured() {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        ch.qos.logback.core.util.StatusPrinter.setPrintStream(new java.io.PrintStream(out, true,
                StandardCharsets.UTF_8));
        return out;
    }

    private static String state(String admin, UUID id) {
        HttpResponse<String> response = APP.get(admin, "/v1/conflicts/" + id);
        return Seed.parse(response.body()).at("/synthesis/state").asText();
    }

    private static String read(String file) {
        try {
            Path path = LOGS.resolve(file);
            return Files.exists(path) ? Files.readString(path, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }


    private static String random(int bytes) {
        byte[] raw = new byte[bytes];
        new SecureRandom().nextBytes(raw);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
    }

    static String sha256Hex(String token) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static StandInProvider start(Behaviour behaviour) {
        try {
            return StandInProvider.start(behaviour);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
