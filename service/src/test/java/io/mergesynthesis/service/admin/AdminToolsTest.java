package io.mergesynthesis.service.admin;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.testing.TestApp;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * The admin port's tasks, /threads and /pprof: off by default (404, and a task changes nothing), and with a
 * token configured, open only to requests that carry it. /healthcheck, /ping and /metrics stay open either way.
 */
class AdminToolsTest {

    static final String LOGGER = "io.mergesynthesis.admin-tools-test";
    static final String TOKEN = "admin-tools-token-for-the-test";

    @AfterEach
    void quiet() {
        ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger(LOGGER).setLevel(null);
    }

    static HttpResponse<String> raiseToTrace(TestApp app, String authorization) {
        HttpRequest.Builder request = HttpRequest.newBuilder(app.adminUri("/tasks/log-level?logger=" + LOGGER
                + "&level=TRACE")).POST(HttpRequest.BodyPublishers.noBody());
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return app.send(request.build());
    }

    static Level level() {
        return ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger(LOGGER).getLevel();
    }

    @Nested
    @ExtendWith(DropwizardExtensionsSupport.class)
    class ByDefault {

        static final TestApp APP = TestApp.apiOnly();
        static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

        @Test
        void tasksThreadsAndProfilesAreOff() {
            HttpResponse<String> task = raiseToTrace(APP, null);
            assertThat(task.statusCode()).isEqualTo(404);
            assertThat(task.body()).contains("ADMIN_TOOLS_TOKEN_SHA256");
            assertThat(level()).isNull();
            for (String path : List.of("/tasks/gc", "/tasks", "/threads", "/pprof", "/pprof?state=blocked",
                    "//threads", "/threads/", "/./threads", "/%74hreads", "/tasks/../threads")) {
                assertThat(APP.getAdmin(path).statusCode()).as(path).isIn(400, 404);
            }
        }

        @Test
        void probesAndMetricsStayOpen() {
            assertThat(APP.getAdmin("/healthcheck").statusCode()).isEqualTo(200);
            assertThat(APP.getAdmin("/ping").statusCode()).isEqualTo(200);
            assertThat(APP.getAdmin("/metrics").statusCode()).isEqualTo(200);
        }
    }

    @Nested
    @ExtendWith(DropwizardExtensionsSupport.class)
    class WithAToken {

        static final TestApp APP = TestApp.apiOnly(ConfigOverride.config("adminTools.tokenSha256",
                HexFormat.of().formatHex(AdminToolsGuard.sha256(TOKEN))));
        static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

        @Test
        void aTaskWithoutTheTokenIsRefusedAndChangesNothing() {
            for (String authorization : new String[] {null, "Bearer wrong-token", "Basic " + TOKEN, TOKEN}) {
                HttpResponse<String> task = raiseToTrace(APP, authorization);
                assertThat(task.statusCode()).as(String.valueOf(authorization)).isEqualTo(401);
                assertThat(task.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(
                        value -> assertThat(value).startsWith("Bearer"));
            }
            assertThat(level()).isNull();
            assertThat(APP.getAdmin("/threads").statusCode()).isEqualTo(401);
        }

        @Test
        void theTokenOpensTheTools() {
            HttpResponse<String> task = raiseToTrace(APP, "Bearer " + TOKEN);
            assertThat(task.statusCode()).as(task.body()).isEqualTo(200);
            assertThat(level()).isEqualTo(Level.TRACE);
            HttpResponse<String> threads = APP.send(HttpRequest.newBuilder(APP.adminUri("/threads"))
                    .header("Authorization", "Bearer " + TOKEN).GET().build());
            assertThat(threads.statusCode()).isEqualTo(200);
            assertThat(threads.body()).contains("java.lang.Thread");
        }
    }
}
