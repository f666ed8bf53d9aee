package io.mergesynthesis.llm;

import static io.mergesynthesis.llm.Fixtures.KEY;
import static io.mergesynthesis.llm.Fixtures.conflict;
import static io.mergesynthesis.llm.Fixtures.model;
import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.Behaviour.Scripted;
import io.mergesynthesis.standin.Failure;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.synthesis.ProviderCall;
import io.mergesynthesis.synthesis.SynthesisException;
import io.mergesynthesis.synthesis.Ticker;
import io.prometheus.client.CollectorRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The key must never leave the request: not in an exception, a message, a call record or a toString. */
class KeyHygieneTest {

    @Test
    void noFailureOrPrintedObjectCarriesTheKey() throws Exception {
        TestClock clock = new TestClock();
        List<String> printed = new ArrayList<>();
        try (StandInProvider standIn = StandInProvider.start(new Behaviour())) {
            LlmSettings settings = Fixtures.settings(standIn.anthropicBaseUrl(), standIn.openAiBaseUrl(), AnswerMode.TOOL);
            LlmSynthesizer synthesizer = new LlmSynthesizer(settings, clock, Ticker.SYSTEM, new CollectorRegistry());
            printed.add(settings.toString());
            printed.add(synthesizer.toString());

            // Providers that quote the key back (OpenAI quotes part of it) in a 401 and a 400.
            standIn.behaviour().script(
                    Scripted.raw(401, Map.of(), "{\"error\":{\"message\":\"Incorrect API key provided: " + KEY
                            + "\",\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}"),
                    Scripted.raw(400, Map.of(), "{\"error\":{\"message\":\"bad header " + KEY
                            + "\",\"type\":\"invalid_request_error\"}}"));
            printed.add(failure(synthesizer, "openai"));
            printed.add(failure(synthesizer, "anthropic"));
            synthesizer.problem().ifPresent(printed::add);

            for (Failure kind : List.of(Failure.SERVER_ERROR, Failure.OVERLOADED, Failure.RATE_LIMITED, Failure.NOT_JSON,
                    Failure.UNKNOWN_POLICY)) {
                clock.advance(Duration.ofMinutes(15)); // past any pause the previous failure set
                standIn.behaviour().failNext(1, kind);
                printed.add(failure(synthesizer, "anthropic"));
            }
            clock.advance(Duration.ofMinutes(15));
            printed.add(synthesizer.synthesizeWithCalls(conflict(), model("anthropic", "test-model")).toString());
        }

        assertThat(printed).hasSizeGreaterThan(8).allSatisfy(text -> assertThat(text).doesNotContain(KEY));
    }

    private static String failure(LlmSynthesizer synthesizer, String provider) throws InterruptedException {
        try {
            synthesizer.synthesizeWithCalls(conflict(), model(provider, "test-model"));
            throw new AssertionError("expected a failure from " + provider);
        } catch (SynthesisException e) {
            StringWriter trace = new StringWriter();
            e.printStackTrace(new PrintWriter(trace));
            return trace + e.calls().stream().map(ProviderCall::toString).toList().toString();
        }
    }

    @Test
    void serializedSettingsLeaveTheKeyOut() throws Exception {
        LlmSettings settings = Fixtures.settings("https://anthropic.example", "https://openai.example/v1", AnswerMode.TOOL);

        String json = WireJson.MAPPER.writeValueAsString(settings);
        LlmSettings read = WireJson.MAPPER.readValue(
                "{\"providers\":{\"a\":{\"type\":\"anthropic\",\"apiKey\":\"" + KEY + "\"}}}", LlmSettings.class);

        assertThat(json).doesNotContain(KEY).contains("anthropic.example");
        assertThat(read.getProviders().get("a").getApiKey()).as("still bound from configuration").isEqualTo(KEY);
    }
}
