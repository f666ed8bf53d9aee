package io.mergesynthesis.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.llm.LlmSettings;
import io.mergesynthesis.llm.LlmSynthesizer;
import io.mergesynthesis.llm.ModelPrice;
import io.mergesynthesis.llm.ProviderSettings;
import io.mergesynthesis.llm.ProviderType;
import io.mergesynthesis.service.tracing.TraceExport;
import io.mergesynthesis.service.worker.WorkerFixture.Replica;
import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.Failure;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.Router;
import io.mergesynthesis.synthesis.SuggestedMerge;
import io.mergesynthesis.synthesis.SynthesisException;
import io.mergesynthesis.synthesis.Ticker;
import io.mergesynthesis.testsupport.Wait;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.prometheus.client.CollectorRegistry;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The trace of an attempt, through the real worker pool and database, against the stand-in provider on loopback:
 * one span per attempt naming its conflict, the client span of each provider call beneath it, and nothing of the
 * conflict's content anywhere. With traces off the worker runs on the no-op API and nothing is current.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class AttemptTracingTest {

    private static final Set<String> ATTEMPT_KEYS = Set.of("merge_synthesis.conflict.id",
            "merge_synthesis.attempt.number", "merge_synthesis.attempt.end", "merge_synthesis.attempt.reason",
            "error.type");

    private final InMemorySpanExporter exported = InMemorySpanExporter.create();
    private final OpenTelemetrySdk telemetry = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exported)).build())
            .build();
    private StandInProvider standIn;

    @BeforeEach
    void start() throws Exception {
        standIn = StandInProvider.start(new Behaviour().usage(1000, 200, 300, 0));
    }

    @AfterEach
    void stop() {
        standIn.close();
        telemetry.close();
    }

    @Test
    void anEscalatedAttemptIsOneSpanWithBothCallsBeneathIt() throws Exception {
        standIn.behaviour().confidenceFor("small", 0.4).confidenceFor("large", 0.95);
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID id = fixture.insertConflict("jira.create_issue");
            Replica replica = fixture.replica(WorkerFixture.settings("traced"), synthesizer(telemetry), router(),
                    builder -> builder.telemetry(telemetry));
            replica.pool().start();
            Wait.until("the merge stored", Duration.ofSeconds(30),
                    () -> "done".equals(fixture.column(id, "synthesis_state")));
            Wait.until("the attempt's span ended", Duration.ofSeconds(10), () -> attempts().size() == 1);

            SpanData attempt = attempts().get(0);
            assertThat(attempt.getKind()).isEqualTo(SpanKind.INTERNAL);
            assertThat(text(attempt, "merge_synthesis.conflict.id")).isEqualTo(id.toString());
            assertThat(number(attempt, "merge_synthesis.attempt.number")).isEqualTo(1L);
            assertThat(text(attempt, "merge_synthesis.attempt.end")).isEqualTo("stored");
            assertThat(text(attempt, "error.type")).isNull();
            assertThat(attempt.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);

            List<SpanData> calls = calls();
            assertThat(calls).extracting(SpanData::getName).containsExactly("chat small", "chat large");
            assertThat(calls).allSatisfy(call -> {
                assertThat(call.getParentSpanId()).isEqualTo(attempt.getSpanId());
                assertThat(call.getTraceId()).isEqualTo(attempt.getTraceId());
                assertThat(text(call, "gen_ai.provider.name")).isEqualTo("openai");
                assertThat(number(call, "gen_ai.usage.input_tokens")).isEqualTo(1300L);
                assertThat(number(call, "gen_ai.usage.cache_read.input_tokens")).isEqualTo(300L);
            });
            assertNothingOfTheConflict("jira.create_issue");
        }
    }

    @Test
    void aFailedAttemptCarriesItsReasonAsErrorTypeAndTheNextAttemptIsASpanOfItsOwn() throws Exception {
        standIn.behaviour().confidence(0.9).failNext(1, Failure.NOT_JSON);
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID id = fixture.insertConflict("github.delete_repo");
            Replica replica = fixture.replica(WorkerFixture.settings("traced"), synthesizer(telemetry), router(),
                    builder -> builder.telemetry(telemetry));
            replica.pool().start();
            Wait.until("the merge stored", Duration.ofSeconds(30),
                    () -> "done".equals(fixture.column(id, "synthesis_state")));
            Wait.until("both attempts' spans ended", Duration.ofSeconds(10), () -> attempts().size() == 2);

            List<SpanData> attempts = attempts();
            assertThat(attempts).extracting(span -> number(span, "merge_synthesis.attempt.number"))
                    .containsExactly(1L, 2L);
            SpanData failed = attempts.get(0);
            assertThat(text(failed, "merge_synthesis.attempt.end")).isEqualTo("retry");
            assertThat(text(failed, "error.type")).isEqualTo(FailureReason.INVALID_JSON.label());
            assertThat(failed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
            assertThat(failed.getStatus().getDescription()).as("no failure text on the span").isEmpty();
            assertThat(text(attempts.get(1), "merge_synthesis.attempt.end")).isEqualTo("stored");
            assertThat(attempts.get(1).getTraceId()).as("each attempt is a trace of its own")
                    .isNotEqualTo(failed.getTraceId());
            // The call was answered: the answer was unusable, not the call.
            SpanData unusable = calls().get(0);
            assertThat(unusable.getParentSpanId()).isEqualTo(failed.getSpanId());
            assertThat(text(unusable, "error.type")).isNull();
            assertNothingOfTheConflict("github.delete_repo");
        }
    }

    @Test
    void withNoExporterConfiguredTheWorkerRunsOnTheNoOpApiAndNothingIsCurrent() throws Exception {
        TraceExport off = TraceExport.of(Map.of());
        assertThat(off.telemetry()).isSameAs(OpenTelemetry.noop());
        List<Boolean> seen = new ArrayList<>();
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID id = fixture.insertConflict("drive.share");
            Replica replica = fixture.replica(WorkerFixture.settings("untraced"), new ForwardingToStub(seen),
                    builder -> builder.telemetry(off.telemetry()));
            replica.pool().start();
            Wait.until("the merge stored", Duration.ofSeconds(30),
                    () -> "done".equals(fixture.column(id, "synthesis_state")));
        }
        assertThat(seen).as("whether a span was current in the synthesizer").containsExactly(false);
    }

    @Test
    void withTracesOnTheSynthesizerRunsInsideTheAttemptsSpan() throws Exception {
        List<Boolean> seen = new ArrayList<>();
        try (WorkerFixture fixture = new WorkerFixture()) {
            UUID id = fixture.insertConflict("drive.share");
            Replica replica = fixture.replica(WorkerFixture.settings("traced"), new ForwardingToStub(seen),
                    builder -> builder.telemetry(telemetry));
            replica.pool().start();
            Wait.until("the merge stored", Duration.ofSeconds(30),
                    () -> "done".equals(fixture.column(id, "synthesis_state")));
        }
        assertThat(seen).containsExactly(true);
        assertThat(attempts()).singleElement().satisfies(span -> assertThat(span.getAttributes().asMap().keySet())
                .extracting(AttributeKey::getKey).isSubsetOf(ATTEMPT_KEYS));
    }

    /** The stub's merge, noting whether a span was current on the thread that made it. */
    private static final class ForwardingToStub implements MergeSynthesizer {
        private final MergeSynthesizer stub = WorkerFixture.stub();
        private final List<Boolean> seen;

        ForwardingToStub(List<Boolean> seen) {
            this.seen = seen;
        }

        @Override
        public String name() {
            return stub.name();
        }

        @Override
        public SuggestedMerge synthesize(ConflictSnapshot conflict, ResolvedModel model)
                throws SynthesisException, InterruptedException {
            synchronized (seen) {
                seen.add(Span.current().getSpanContext().isValid());
            }
            return stub.synthesize(conflict, model);
        }
    }

    private void assertNothingOfTheConflict(String target) {
        for (SpanData span : exported.getFinishedSpanItems()) {
            if (span.getName().equals("synthesis attempt")) {
                assertThat(span.getAttributes().asMap().keySet()).extracting(AttributeKey::getKey)
                        .isSubsetOf(ATTEMPT_KEYS);
            }
            span.getAttributes().forEach((key, value) -> assertThat(String.valueOf(value)).as(key.getKey())
                    .doesNotContain(target).doesNotContain("\"p1\"").doesNotContain("m1"));
        }
    }

    private LlmSynthesizer synthesizer(OpenTelemetry traces) {
        LlmSettings settings = new LlmSettings();
        settings.getProviders().put("standin", new ProviderSettings(ProviderType.OPENAI, standIn.openAiBaseUrl(),
                "test-key-" + UUID.randomUUID()));
        settings.getModels().put("standin/small", new ModelPrice(BigDecimal.ONE, BigDecimal.TEN));
        settings.getModels().put("standin/large", new ModelPrice(BigDecimal.TEN, BigDecimal.TEN));
        settings.setPrimaryModel("standin/small");
        settings.setEscalationModel("standin/large");
        return new LlmSynthesizer(settings, Clock.systemUTC(), Ticker.SYSTEM, new CollectorRegistry(), traces);
    }

    private static Router router() {
        ResolvedModel large = new ResolvedModel(Router.MERGE_SYNTHESIS, "standin", "large");
        return (function, org) -> new ResolvedModel(Router.MERGE_SYNTHESIS, "standin", "small", large);
    }

    private List<SpanData> attempts() {
        return exported.getFinishedSpanItems().stream().filter(span -> span.getName().equals("synthesis attempt"))
                .toList();
    }

    private List<SpanData> calls() {
        return exported.getFinishedSpanItems().stream().filter(span -> span.getKind() == SpanKind.CLIENT).toList();
    }

    private static String text(SpanData span, String key) {
        return span.getAttributes().get(AttributeKey.stringKey(key));
    }

    private static Long number(SpanData span, String key) {
        return span.getAttributes().get(AttributeKey.longKey(key));
    }
}
