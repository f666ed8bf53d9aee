package io.mergesynthesis.service.models;

import io.mergesynthesis.llm.LlmSettings;
import io.mergesynthesis.llm.LlmSynthesizer;
import io.mergesynthesis.llm.ProviderSettings;
import io.mergesynthesis.llm.SharedLimits;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.MergeSynthesizerProvider;
import io.mergesynthesis.synthesis.Ticker;
import io.opentelemetry.api.OpenTelemetry;
import io.prometheus.client.CollectorRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * Makes the LLM synthesizer selectable as {@code synthesis.synthesizer: llm}. Unlike a third party's synthesizer
 * it is not found through {@link java.util.ServiceLoader}: it needs the service's {@code llm:} settings and its
 * metrics registry, so the service offers it to the catalog itself (ADR 0019).
 */
public final class LlmSynthesizerProvider implements MergeSynthesizerProvider {

    private final LlmSettings settings;
    private final CollectorRegistry registry;
    private final Duration invokeTimeout;
    private final Ticker ticker;
    private final OpenTelemetry telemetry;
    private final SharedLimits shared;

    /**
     * @param invokeTimeout the worker's limit on one attempt; both passes' requests must fit inside it, or the
     *                      worker could interrupt an escalation and lose the primary's paid answer with it
     * @param ticker        the worker's, so that one ticker reckons the worker's and the provider calls' waits
     * @param telemetry     where each provider call's span goes; {@link OpenTelemetry#noop()} when traces are off
     * @param shared        where the providers' token limits are kept with the other replicas (ADR 0073);
     *                      {@link SharedLimits#NONE} paces each replica from its own answers alone
     */
    public LlmSynthesizerProvider(LlmSettings settings, CollectorRegistry registry, Duration invokeTimeout,
                                  Ticker ticker, OpenTelemetry telemetry, SharedLimits shared) {
        this.telemetry = telemetry;
        this.shared = shared;
        this.settings = settings;
        this.registry = registry;
        this.invokeTimeout = invokeTimeout;
        this.ticker = ticker;
    }

    @Override
    public String name() {
        return LlmSynthesizer.NAME;
    }

    /** @throws IllegalArgumentException listing what is wrong with the {@code llm:} settings, keys never shown */
    @Override
    public MergeSynthesizer create(Clock clock) {
        MergeSynthesizer synthesizer = new LlmSynthesizer(settings, clock, ticker, registry, invokeTimeout,
                telemetry, shared);
        passesOutlastInvoke().ifPresent(problem -> {
            throw new IllegalArgumentException(problem);
        });
        return synthesizer;
    }

    /**
     * Why the route's passes could outlast {@code synthesis.invokeTimeout}: each pass may wait
     * {@code llm.concurrencyWait} for a slot and then its provider's request timeout; the primary's pass plus the
     * escalation's (when there is one) must leave a second to spare.
     */
    Optional<String> passesOutlastInvoke() {
        Duration primary = passOf(settings.getPrimaryModel());
        String escalation = settings.getEscalationModel();
        Duration both = escalation == null || escalation.isBlank() ? primary : primary.plus(passOf(escalation));
        if (both.plus(SPARE).compareTo(invokeTimeout) <= 0) {
            return Optional.empty();
        }
        return Optional.of("the route's passes may take " + both.toMillis() + " ms (llm.concurrencyWait plus "
                + "llm.providers.<name>.requestTimeout, for primary and escalation together); with 1 s to spare they "
                + "must fit within synthesis.invokeTimeout (" + invokeTimeout.toMillis() + " ms), or an attempt "
                + "could be cut off after paying for its primary answer; lower requestTimeout or raise "
                + "invokeTimeout (and leaseDuration with it)");
    }

    private static final Duration SPARE = Duration.ofSeconds(1);

    private Duration passOf(String model) {
        ProviderSettings provider = settings.getProviders().get(model.substring(0, model.indexOf('/')));
        return settings.getConcurrencyWait().plus(provider.getRequestTimeout());
    }
}
