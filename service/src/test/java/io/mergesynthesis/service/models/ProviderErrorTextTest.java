package io.mergesynthesis.service.models;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.AppenderBase;
import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.Seed;
import io.mergesynthesis.service.testing.TestApp;
import io.mergesynthesis.service.testing.WebPages;
import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.Behaviour.Scripted;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.testsupport.Wait;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * What a tenant reads of a provider's failure: fixed words for its kind and the provider's request id, in the
 * attempt history of the API and of the web page alike; never the provider's own text, which can quote the key.
 * That text stays in the operator's log, with everything key-shaped taken out.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ProviderErrorTextTest {

    /** A made-up key, put together here so that nothing shaped like a real key sits in the repository. */
    static final String KEY = "sk-" + "ant-" + "REDACTEDTESTKEY-0123456789";
    /** How providers quote a key shortened: its head and its tail. */
    static final String PARTIAL = "sk-ant-RED...6789";
    static final String TOKEN = "msk_tenantToken0123456789";
    /** Words only the provider's own text holds. */
    static final String RAW = "PROVIDER-OWN-WORDS";

    static final StandInProvider STAND_IN = standIn();
    static final TestApp APP = TestApp.onStandIn(STAND_IN, KEY,
            ConfigOverride.config("synthesis.maxAttempts", "2"));
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();
    static final Captured LOG = new Captured();

    static String platform;

    @BeforeAll
    static void setUp() {
        platform = APP.token(Role.PLATFORM, null);
        LOG.start();
        ((Logger) LoggerFactory.getLogger("io.mergesynthesis")).setLevel(Level.TRACE);
        ((Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME)).addAppender(LOG);
    }

    @AfterAll
    static void tearDown() {
        ((Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME)).detachAppender(LOG);
        ((Logger) LoggerFactory.getLogger("io.mergesynthesis")).setLevel(null);
        STAND_IN.close();
    }

    @Test
    void aRefusalQuotingTheKeyShowsTenantsFixedWordsAndTheRequestIdAndLogsNoKey() throws Exception {
        String body = "{\"error\":{\"message\":\"Invalid value for header x-api-key: " + KEY + " (shown as " + PARTIAL
                + "), caller " + TOKEN + "; " + RAW + "\",\"type\":\"invalid_request_error\",\"code\":null}}";
        STAND_IN.behaviour().script(
                Scripted.raw(400, Map.of("x-request-id", "req_refused_1"), body),
                Scripted.raw(400, Map.of("x-request-id", "req_refused_2"), body));
        UUID org = UUID.randomUUID();
        String admin = APP.token(Role.ORG_ADMIN, org);
        UUID id = Seed.conflict(APP, platform, org, "refused-1", "jira.create_issue");

        JsonNode conflict = awaitConflict(admin, id, c -> "max_attempts_exceeded".equals(c.at("/synthesis/state").asText()));
        JsonNode history = conflict.at("/synthesis/attempt_history");
        assertThat(history).extracting(line -> line.get("detail").asText()).containsExactly(
                "the model provider refused the request (HTTP 400) (provider request id req_refused_1)",
                "the model provider refused the request (HTTP 400) (provider request id req_refused_2)");
        String api = APP.get(admin, "/v1/conflicts/" + id).body();
        assertThat(api).doesNotContain(RAW).doesNotContain("sk-ant").doesNotContain("msk_").doesNotContain("6789");

        String page = WebPages.signIn(APP, admin).page("/conflicts/" + id);
        assertThat(page).contains("the model provider refused the request (HTTP 400) (provider request id req_refused_1)")
                .doesNotContain(RAW).doesNotContain("sk-ant").doesNotContain("msk_");

        assertThat(LOG.texts()).as("the operator still reads what the provider said")
                .anyMatch(text -> text.contains(RAW) && text.contains("HTTP 400"));
        assertThat(LOG.texts()).allSatisfy(text -> assertThat(text)
                .doesNotContain("sk-ant").doesNotContain("REDACTEDTESTKEY").doesNotContain("RED...")
                .doesNotContain(TOKEN));
    }

    @Test
    void anOutageAnswerAndAnInvalidAnswerShowNoProviderText() throws Exception {
        UUID org = UUID.randomUUID();
        String admin = APP.token(Role.ORG_ADMIN, org);

        STAND_IN.behaviour().script(Scripted.raw(503, Map.of("x-request-id", "req_down_1"),
                "{\"error\":{\"message\":\"upstream " + KEY + " " + RAW + "\",\"type\":\"server_error\"}}"));
        UUID down = Seed.conflict(APP, platform, org, "down-1", "jira.create_issue");
        JsonNode afterOutage = awaitConflict(admin, down, c -> "done".equals(c.at("/synthesis/state").asText()));
        assertThat(afterOutage.at("/synthesis/attempt_history/0/detail").asText())
                .startsWith("the model provider was unavailable (HTTP 503)").endsWith("(provider request id req_down_1)");

        String prose = "Sure! " + RAW + " ".repeat(3) + "x".repeat(600);
        STAND_IN.behaviour().script(Scripted.answer(prose));
        UUID invalid = Seed.conflict(APP, platform, org, "invalid-1", "drive.share");
        JsonNode afterInvalid = awaitConflict(admin, invalid, c -> "done".equals(c.at("/synthesis/state").asText()));
        String detail = afterInvalid.at("/synthesis/attempt_history/0/detail").asText();
        assertThat(afterInvalid.at("/synthesis/attempt_history/0/reason").asText()).isEqualTo("invalid_json");
        assertThat(detail).startsWith("the answer was not a valid merge: ").contains("(provider request id ");
        assertThat(detail.length()).as("a short excerpt of the answer at most: %s", detail).isLessThan(360);

        WebPages web = WebPages.signIn(APP, admin);
        for (UUID id : List.of(down, invalid)) {
            assertThat(APP.get(admin, "/v1/conflicts/" + id).body()).doesNotContain("sk-ant").doesNotContain(KEY);
            assertThat(web.page("/conflicts/" + id)).doesNotContain("sk-ant").doesNotContain("upstream");
        }
        assertThat(APP.get(admin, "/v1/conflicts/" + down).body()).doesNotContain(RAW);
        assertThat(LOG.texts()).allSatisfy(text -> assertThat(text).doesNotContain("sk-ant"));
    }


    private static StandInProvider standIn() {
        try {
            return StandInProvider.start(new Behaviour().expectedKey(KEY).latency(Duration.ofMillis(5)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every log event of the run, with its stack, as text. */
    static final class Captured extends AppenderBase<ILoggingEvent> {

        private final Queue<String> texts = new ConcurrentLinkedQueue<>();

        @Override
        protected void append(ILoggingEvent event) {
            String text = event.getFormattedMessage();
            if (event.getThrowableProxy() != null) {
                text += "\n" + ThrowableProxyUtil.asString(event.getThrowableProxy());
            }
            texts.add(text);
        }

        List<String> texts() {
            return new ArrayList<>(texts);
        }
    }

    private static JsonNode awaitConflict(String admin, UUID id, Predicate<JsonNode> condition) {
        return Wait.forValue("conflict " + id + " to reach the state this test expects", Duration.ofSeconds(40),
                () -> Seed.parse(APP.get(admin, "/v1/conflicts/" + id).body()), condition);
    }
}
