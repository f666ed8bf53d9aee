package io.mergesynthesis.llm;

import static io.mergesynthesis.llm.Fixtures.anotherConflict;
import static io.mergesynthesis.llm.Fixtures.conflict;
import static io.mergesynthesis.llm.Fixtures.model;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.Behaviour.Scripted;
import io.mergesynthesis.standin.Failure;
import io.mergesynthesis.standin.Outage;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.synthesis.InvalidAnswerException;
import io.mergesynthesis.synthesis.ProviderCall;
import io.mergesynthesis.synthesis.ProviderCall.Disposition;
import io.mergesynthesis.synthesis.SynthesisDeferred;
import io.mergesynthesis.synthesis.SynthesisException;
import io.mergesynthesis.synthesis.Ticker;
import io.mergesynthesis.testsupport.Wait;
import io.prometheus.client.CollectorRegistry;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** What the synthesizer makes of a provider that throttles, refuses, breaks or says nonsense. */
@Timeout(30)
class ProviderFailuresTest {

    private StandInProvider standIn;
    private final TestClock clock = new TestClock();
    private final CollectorRegistry registry = new CollectorRegistry();
    private LlmSettings settings;
    private LlmSynthesizer synthesizer;

    @BeforeEach
    void start() throws Exception {
        standIn = StandInProvider.start(new Behaviour().expectedKey(Fixtures.KEY));
        settings = Fixtures.settings(standIn.anthropicBaseUrl(), standIn.openAiBaseUrl(), AnswerMode.TOOL);
    }

    @AfterEach
    void stop() {
        standIn.close();
    }

    private LlmSynthesizer synthesizer() {
        if (synthesizer == null) {
            synthesizer = new LlmSynthesizer(settings, clock, Ticker.SYSTEM, registry);
        }
        return synthesizer;
    }

    private double calls(String provider, String outcome) {
        Double value = registry.getSampleValue("llm_calls_total", new String[] {"provider", "outcome"},
                new String[] {provider, outcome});
        return value == null ? 0 : value;
    }

    @Test
    void a429PausesTheModelItCameFromForItsRetryAfter() throws Exception {
        standIn.behaviour().script(Scripted.raw(429, Map.of("retry-after", "7"),
                "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"slow down\"}}"));

        SynthesisDeferred first = catchThrowableOfType(
                () -> synthesizer().synthesizeWithCalls(conflict(), model("anthropic", "test-model")),
                SynthesisDeferred.class);

        assertThat(first.deferral()).isEqualTo(SynthesisDeferred.Cause.RATE_LIMITED);
        assertThat(first.provider()).isEqualTo("anthropic");
        assertThat(first.retryAfter()).isEqualTo(Duration.ofSeconds(7));
        assertThat(first.calls()).singleElement().extracting(ProviderCall::disposition).isEqualTo(Disposition.RATE_LIMITED);
        assertThat(synthesizer().concurrencyLimit("anthropic")).isEqualTo(8);
        assertThat(calls("anthropic", "rate_limited")).isEqualTo(1);

        clock.advance(Duration.ofSeconds(3));
        SynthesisDeferred second = catchThrowableOfType(
                () -> synthesizer().synthesizeWithCalls(conflict(), model("anthropic", "test-model")),
                SynthesisDeferred.class);

        assertThat(second.deferral()).isEqualTo(SynthesisDeferred.Cause.RATE_LIMITED);
        assertThat(second.retryAfter()).isEqualTo(Duration.ofSeconds(4));
        assertThat(second.calls()).isEmpty();
        assertThat(second).hasMessageContaining("model 'test-model' is paused");
        assertThat(standIn.stats().requests()).as("no request may reach a paused model").isEqualTo(1);

        // Providers limit each model apart: another model of the same provider is called as usual.
        assertThat(synthesizer().synthesizeWithCalls(conflict(), model("anthropic", "test-model-large")).calls())
                .hasSize(1);
        assertThat(standIn.stats().requests()).isEqualTo(2);

        clock.advance(Duration.ofSeconds(4));
        assertThat(synthesizer().synthesizeWithCalls(conflict(), model("anthropic", "test-model")).calls()).hasSize(1);
        assertThat(standIn.stats().requests()).isEqualTo(3);
    }

    @Test
    void aStatedLimitWithNothingLeftHandsCallsBackUncountedUntilItsReset() throws Exception {
        standIn.behaviour().script(Scripted.raw(429, Map.of(
                        "retry-after", "1",
                        "x-ratelimit-limit-requests", "60",
                        "x-ratelimit-remaining-requests", "0",
                        "x-ratelimit-reset-requests", "30s"),
                "{\"error\":{\"type\":\"requests\",\"code\":\"rate_limit_exceeded\",\"message\":\"Rate limit reached\"}}"));
        catchThrowableOfType(() -> synthesizer().synthesizeWithCalls(conflict(), model("openai", "test-model")),
                SynthesisDeferred.class);

        clock.advance(Duration.ofSeconds(2));
        SynthesisDeferred paced = catchThrowableOfType(
                () -> synthesizer().synthesizeWithCalls(conflict(), model("openai", "test-model")),
                SynthesisDeferred.class);

        assertThat(paced.deferral()).as("uncounted, and no pause for the whole provider")
                .isEqualTo(SynthesisDeferred.Cause.AT_CONCURRENCY_LIMIT);
        assertThat(paced.retryAfter()).as("the reset, 28 s away, and a guard of 1% of the 30 s period, less half "
                        + "the slot wait of 2 s: the worker that claims the conflict again waits for the turn itself")
                .isEqualTo(Duration.ofMillis(27_300));
        assertThat(paced.calls()).isEmpty();
        assertThat(standIn.stats().requests()).isEqualTo(1);
        assertThat(registry.getSampleValue("llm_pace_requests_per_second", new String[] {"provider"},
                new String[] {"openai"})).isZero();

        clock.advance(Duration.ofSeconds(29));
        assertThat(synthesizer().synthesizeWithCalls(conflict(), model("openai", "test-model")).calls()).hasSize(1);
        assertThat(registry.getSampleValue("llm_pace_requests_per_second", new String[] {"provider"},
                new String[] {"anthropic"})).as("a provider that never stated a limit is not paced").isZero();
    }

    @Test
    void aPauseOfOneProviderLeavesTheOtherAlone() throws Exception {
        standIn.behaviour().failNext(1, Failure.RATE_LIMITED);
        catchThrowableOfType(() -> synthesizer().synthesizeWithCalls(conflict(), model("anthropic", "test-model")),
                SynthesisDeferred.class);

        assertThat(synthesizer().synthesizeWithCalls(conflict(), model("openai", "test-model")).calls()).hasSize(1);
    }

    @Test
    void anOpenAi429HonoursRetryAfterMs() throws Exception {
        standIn.behaviour().script(Scripted.raw(429, Map.of("retry-after-ms", "2500"),
                "{\"error\":{\"type\":\"requests\",\"code\":\"rate_limit_exceeded\",\"message\":\"Rate limit reached\"}}"));

        SynthesisDeferred deferred = catchThrowableOfType(
                () -> synthesizer().synthesizeWithCalls(conflict(), model("openai", "test-model")), SynthesisDeferred.class);

        assertThat(deferred.deferral()).isEqualTo(SynthesisDeferred.Cause.RATE_LIMITED);
        assertThat(deferred.retryAfter()).isEqualTo(Duration.ofMillis(2500));
    }

    @Test
    void anAnthropic429HonoursTheLatestExhaustedLimitsReset() throws Exception {
        standIn.behaviour().script(Scripted.raw(429, Map.of(
                        "retry-after", "2",
                        "anthropic-ratelimit-requests-remaining", "0",
                        "anthropic-ratelimit-requests-reset", clock.instant().plusSeconds(12).toString(),
                        "anthropic-ratelimit-tokens-remaining", "5000",
                        "anthropic-ratelimit-tokens-reset", clock.instant().plusSeconds(50).toString()),
                "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"slow down\"}}"));

        SynthesisDeferred deferred = catchThrowableOfType(
                () -> synthesizer().synthesizeWithCalls(conflict(), model("anthropic", "test-model")),
                SynthesisDeferred.class);

        assertThat(deferred.retryAfter()).isEqualTo(Duration.ofSeconds(12));
    }

    @Test
    void an529IsAnOverloadWithTheDefaultPause() throws Exception {
        standIn.behaviour().failNext(1, Failure.OVERLOADED);

        SynthesisDeferred deferred = catchThrowableOfType(
                () -> synthesizer().synthesizeWithCalls(conflict(), model("anthropic", "test-model")),
                SynthesisDeferred.class);

        assertThat(deferred.deferral()).isEqualTo(SynthesisDeferred.Cause.OVERLOADED);
        assertThat(deferred.retryAfter()).isEqualTo(ProviderClient.THROTTLE_FALLBACK);
        assertThat(deferred.calls()).singleElement().extracting(ProviderCall::disposition).isEqualTo(Disposition.RATE_LIMITED);
        assertThat(calls("anthropic", "overloaded")).isEqualTo(1);
        assertThat(synthesizer().concurrencyLimit("anthropic")).isEqualTo(8);
    }

    @Test
    void aRefusedKeyDefersSetsTheProblemAndASuccessClearsIt() throws Exception {
        standIn.behaviour().expectedKey("another-test-key");

        SynthesisDeferred deferred = catchThrowableOfType(
                () -> synthesizer().synthesizeWithCalls(conflict(), model("anthropic", "test-model")),
                SynthesisDeferred.class);

        assertThat(deferred.deferral()).isEqualTo(SynthesisDeferred.Cause.REFUSED_KEY);
        assertThat(deferred.retryAfter()).isEqualTo(ProviderGate.REFUSED_KEY_PAUSE);
        assertThat(deferred.calls()).singleElement().extracting(ProviderCall::disposition).isEqualTo(Disposition.FAILED);
        assertThat(synthesizer().problem())
                .contains("provider 'anthropic' refused its key (HTTP 401): check ANTHROPIC_API_KEY");

        SynthesisDeferred whilePaused = catchThrowableOfType(
                () -> synthesizer().synthesizeWithCalls(conflict(), model("anthropic", "test-model")),
                SynthesisDeferred.class);
        assertThat(whilePaused.deferral()).isEqualTo(SynthesisDeferred.Cause.REFUSED_KEY);
        assertThat(standIn.stats().requests()).isEqualTo(1);

        standIn.behaviour().expectedKey(Fixtures.KEY);
        clock.advance(ProviderGate.REFUSED_KEY_PAUSE);
        synthesizer().synthesizeWithCalls(conflict(), model("anthropic", "test-model"));

        assertThat(synthesizer().problem()).isEmpty();
    }

    @Test
    void aSpendLimitIsALongDeferralAndAProblem() throws Exception {
        standIn.behaviour().failNext(1, Failure.SPEND_LIMIT);

        SynthesisDeferred deferred = catchThrowableOfType(
                () -> synthesizer().synthesizeWithCalls(conflict(), model("openai", "test-model")), SynthesisDeferred.class);

        assertThat(deferred.deferral()).isEqualTo(SynthesisDeferred.Cause.PROVIDER_SPEND_LIMIT);
        assertThat(deferred.retryAfter()).isEqualTo(ProviderGate.SPEND_LIMIT_PAUSE);
        assertThat(synthesizer().problem()).hasValueSatisfying(p -> assertThat(p).contains("'openai'", "spend limit"));
        assertThat(synthesizer().concurrencyLimit("openai")).as("a spend limit is not congestion").isEqualTo(16);
    }

    /** Another conflict's call goes out once the circuit lets one through, and is answered: the provider is up. */
    private void anotherConflictIsAnswered(String provider, SynthesisDeferred handedBack) throws Exception {
        clock.advance(handedBack.retryAfter());
        assertThat(synthesizer().synthesizeWithCalls(anotherConflict(), model(provider, "test-model")).merge())
                .isNotNull();
    }

    @Test
    void a500IsRetriedUncountedOnceAndOnceOthersAreAnsweredItCountsWithAFailedCall() throws Exception {
        standIn.behaviour().failNext(1, Failure.SERVER_ERROR);
        var conflict = conflict();

        SynthesisDeferred suspected = catchThrowableOfType(
                () -> synthesizer().synthesizeWithCalls(conflict, model("openai", "test-model")), SynthesisDeferred.class);
        anotherConflictIsAnswered("openai", suspected);
        standIn.behaviour().failNext(1, Failure.SERVER_ERROR);
        SynthesisException failure = catchThrowableOfType(
                () -> synthesizer().synthesizeWithCalls(conflict, model("openai", "test-model")), SynthesisException.class);

        assertThat(suspected.deferral()).isEqualTo(SynthesisDeferred.Cause.OUTAGE_SUSPECTED);
        assertThat(suspected.deferral().pausesProvider()).as("one conflict's failure pauses nobody else").isFalse();
        assertThat(suspected.retryAfter()).isEqualTo(Duration.ofSeconds(1));
        assertThat(suspected.calls()).singleElement().extracting(ProviderCall::disposition).isEqualTo(Disposition.FAILED);
        assertThat(failure).isNotInstanceOf(SynthesisDeferred.class).isNotInstanceOf(InvalidAnswerException.class);
        assertThat(failure).hasMessageContaining("HTTP 500");
        assertThat(failure.calls()).singleElement().satisfies(call -> {
            assertThat(call.disposition()).isEqualTo(Disposition.FAILED);
            assertThat(call.requestId()).startsWith("req-standin-");
        });
        assertThat(calls("openai", "server_error")).isEqualTo(2);
        assertThat(synthesizer().concurrencyLimit("openai")).isEqualTo(16);
    }

    @Test
    void a500AgainWithNoAnswerInBetweenIsTheProvidersAndCostsNothing() throws Exception {
        standIn.behaviour().failNext(2, Failure.SERVER_ERROR);
        var conflict = conflict();

        SynthesisDeferred suspected = catchThrowableOfType(
                () -> synthesizer().synthesizeWithCalls(conflict, model("openai", "test-model")), SynthesisDeferred.class);
        clock.advance(suspected.retryAfter());
        SynthesisDeferred outage = catchThrowableOfType(
                () -> synthesizer().synthesizeWithCalls(conflict, model("openai", "test-model")), SynthesisDeferred.class);

        assertThat(outage.deferral()).isEqualTo(SynthesisDeferred.Cause.PROVIDER_OUTAGE);
        assertThat(outage.deferral().pausesProvider()).isTrue();
        assertThat(outage.calls()).singleElement().extracting(ProviderCall::disposition).isEqualTo(Disposition.FAILED);
        assertThat(synthesizer().circuits()).filteredOn(c -> c.provider().equals("openai"))
                .singleElement().satisfies(c -> assertThat(c.open()).isTrue());
    }

    @ParameterizedTest
    @EnumSource(value = Failure.class, names = {"NOT_JSON", "UNKNOWN_POLICY", "MISSING_FIELD"})
    void malformedAnswersAreInvalidAnswers(Failure failure) throws Exception {
        standIn.behaviour().failNext(1, failure);

        InvalidAnswerException invalid = catchThrowableOfType(
                () -> synthesizer().synthesizeWithCalls(conflict(), model("anthropic", "test-model")),
                InvalidAnswerException.class);

        assertThat(invalid.calls()).singleElement().extracting(ProviderCall::disposition).isEqualTo(Disposition.FAILED);
        assertThat(calls("anthropic", "invalid_output")).isEqualTo(1);
    }

    @Test
    void anAnswerLargerThanAllowedIsInvalid() throws Exception {
        settings.getProviders().get("anthropic").setMaxAnswerBytes(200);

        InvalidAnswerException invalid = catchThrowableOfType(
                () -> synthesizer().synthesizeWithCalls(conflict(), model("anthropic", "test-model")),
                InvalidAnswerException.class);

        assertThat(invalid).hasMessageContaining("more than the 200 allowed");
    }

    @Test
    void aSuccessBodyThatIsNotJsonIsAnInvalidAnswer() throws Exception {
        standIn.behaviour().script(Scripted.raw(200, Map.of(), "<html>gateway</html>"));

        InvalidAnswerException invalid = catchThrowableOfType(
                () -> synthesizer().synthesizeWithCalls(conflict(), model("openai", "test-model")),
                InvalidAnswerException.class);

        assertThat(invalid.calls()).singleElement().satisfies(call -> assertThat(call.inputTokens()).isZero());
    }

    @Test
    void aTimeoutIsRetriedUncountedOnceAndOnceOthersAreAnsweredItCountsWithoutALedgerRow() throws Exception {
        settings.getProviders().get("anthropic").setRequestTimeout(Duration.ofMillis(200));
        standIn.behaviour().latency(Duration.ofSeconds(5));
        var conflict = conflict();

        SynthesisDeferred suspected = catchThrowableOfType(
                () -> synthesizer().synthesizeWithCalls(conflict, model("anthropic", "test-model")),
                SynthesisDeferred.class);
        standIn.behaviour().latency(Duration.ZERO);
        anotherConflictIsAnswered("anthropic", suspected);
        standIn.behaviour().latency(Duration.ofSeconds(5));
        SynthesisException failure = catchThrowableOfType(
                () -> synthesizer().synthesizeWithCalls(conflict, model("anthropic", "test-model")),
                SynthesisException.class);

        assertThat(suspected.deferral()).isEqualTo(SynthesisDeferred.Cause.OUTAGE_SUSPECTED);
        assertThat(failure).isNotInstanceOf(SynthesisDeferred.class).hasMessageContaining("did not answer within 200 ms");
        assertThat(failure.summary()).isEqualTo("the model provider did not answer within 200 ms");
        assertThat(suspected.summary())
                .isEqualTo("the model provider did not answer within 200 ms (tried once more before it counts)");
        assertThat(failure.calls()).isEmpty();
        assertThat(calls("anthropic", "timeout")).isEqualTo(2);
    }

    @Test
    void anUnreachableProviderCostsTheConflictNoAttemptHoweverOftenItIsTriedAndNoLedgerRow() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        settings.getProviders().get("openai").setBaseUrl("http://127.0.0.1:" + closedPort + "/v1");
        var conflict = conflict();

        for (int i = 0; i < 8; i++) {
            SynthesisDeferred handedBack = catchThrowableOfType(
                    () -> synthesizer().synthesizeWithCalls(conflict, model("openai", "test-model")),
                    SynthesisDeferred.class);
            assertThat(handedBack).as("hand-back " + i).isNotNull().hasMessageContaining("could not be reached");
            assertThat(handedBack.calls()).isEmpty();
            clock.advance(handedBack.retryAfter());
        }
        assertThat(probes("openai", "failed")).as("probes while it stays down").isPositive();
    }

    @Test
    void anOpenCircuitIsProbedWithTheModelListNeverWithAConflictAndTheConflictGoesOutOnceItAnswers()
            throws Exception {
        standIn.outage(Outage.STATUS_503);
        var conflict = conflict();
        SynthesisDeferred handedBack = catchThrowableOfType(
                () -> synthesizer().synthesizeWithCalls(conflict, model("anthropic", "test-model")),
                SynthesisDeferred.class);
        for (int i = 0; i < 4; i++) {
            clock.advance(handedBack.retryAfter());
            handedBack = catchThrowableOfType(
                    () -> synthesizer().synthesizeWithCalls(conflict, model("anthropic", "test-model")),
                    SynthesisDeferred.class);
            assertThat(handedBack.deferral()).isIn(SynthesisDeferred.Cause.OUTAGE_SUSPECTED,
                    SynthesisDeferred.Cause.PROVIDER_OUTAGE);
        }
        long conflictCallsWhileDown = standIn.stats().path("/v1/messages");
        long probesWhileDown = standIn.stats().path("/v1/models");
        standIn.outage(Outage.NONE);
        clock.advance(handedBack.retryAfter());

        var merged = synthesizer().synthesizeWithCalls(conflict, model("anthropic", "test-model"));

        assertThat(conflictCallsWhileDown).as("the conflict's own calls: until the circuit opened").isEqualTo(2);
        assertThat(probesWhileDown).as("the rest were free probes").isEqualTo(3);
        assertThat(merged.merge()).isNotNull();
        assertThat(standIn.stats().path("/v1/models")).isEqualTo(probesWhileDown + 1);
        assertThat(probes("anthropic", "answered")).isEqualTo(1);
        assertThat(synthesizer().circuits()).allSatisfy(c -> assertThat(c.open()).isFalse());
    }

    private double probes(String provider, String outcome) {
        Double value = registry.getSampleValue("llm_circuit_probes_total",
                new String[] {"provider", "outcome"}, new String[] {provider, outcome});
        return value == null ? 0 : value;
    }

    @Test
    void anInterruptedCallEndsPromptly() throws Exception {
        standIn.behaviour().latency(Duration.ofSeconds(20));
        CompletableFuture<Thread> worker = new CompletableFuture<>();
        CompletableFuture<Throwable> outcome = CompletableFuture.supplyAsync(() -> {
            worker.complete(Thread.currentThread());
            try {
                synthesizer().synthesizeWithCalls(conflict(), model("anthropic", "test-model"));
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        Wait.until("the stand-in to receive the call", Duration.ofSeconds(10),
                () -> standIn.stats().path("/v1/messages") == 1);

        worker.get().interrupt();

        assertThat(outcome.get(3, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    }

    @Test
    void aCallFindingNoFreeSlotIsDeferredWithoutARequest() throws Exception {
        settings.getProviders().get("anthropic").setMaxConcurrency(1);
        settings.setConcurrencyWait(Duration.ofMillis(100));
        standIn.behaviour().latency(Duration.ofSeconds(20));
        LlmSynthesizer synthesizer = synthesizer();
        CompletableFuture<Thread> worker = new CompletableFuture<>();
        CompletableFuture<Void> first = CompletableFuture.runAsync(() -> {
            worker.complete(Thread.currentThread());
            try {
                synthesizer.synthesizeWithCalls(conflict(), model("anthropic", "test-model"));
            } catch (Exception expected) {
                // interrupted below
            }
        });
        Wait.until("the stand-in to receive the first call", Duration.ofSeconds(10),
                () -> standIn.stats().requests() == 1);

        SynthesisDeferred deferred = catchThrowableOfType(
                () -> synthesizer.synthesizeWithCalls(conflict(), model("anthropic", "test-model")), SynthesisDeferred.class);

        assertThat(deferred.deferral()).isEqualTo(SynthesisDeferred.Cause.AT_CONCURRENCY_LIMIT);
        assertThat(deferred.retryAfter()).isEqualTo(ProviderClient.AT_LIMIT_RETRY);
        assertThat(deferred.calls()).isEmpty();
        assertThat(standIn.stats().requests()).isEqualTo(1);
        worker.get().interrupt();
        first.get(3, TimeUnit.SECONDS);
    }

    @Test
    void anUnpricedModelIsNeverCalled() throws Exception {
        SynthesisException failure = catchThrowableOfType(
                () -> synthesizer().synthesizeWithCalls(conflict(), model("anthropic", "unpriced-model")),
                SynthesisException.class);

        assertThat(failure).hasMessageContaining("anthropic/unpriced-model").hasMessageContaining("no price");
        assertThat(standIn.stats().requests()).isZero();
    }

    @Test
    void anUnknownProviderIsNeverCalled() throws Exception {
        SynthesisException failure = catchThrowableOfType(
                () -> synthesizer().synthesizeWithCalls(conflict(), model("elsewhere", "test-model")),
                SynthesisException.class);

        assertThat(failure).hasMessageContaining("provider 'elsewhere', which is not configured");
    }
}
