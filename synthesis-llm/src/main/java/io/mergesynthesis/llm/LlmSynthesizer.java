package io.mergesynthesis.llm;

import io.mergesynthesis.synthesis.CallRecorder;
import io.mergesynthesis.synthesis.CircuitStatus;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.PolicyRule;
import io.mergesynthesis.synthesis.ProviderCall;
import io.mergesynthesis.synthesis.ProviderCall.Disposition;
import io.mergesynthesis.synthesis.ProviderCall.Pass;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.SuggestedMerge;
import io.mergesynthesis.synthesis.Synthesis;
import io.mergesynthesis.synthesis.SynthesisException;
import io.prometheus.client.CollectorRegistry;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes suggested merges by asking a model provider. One attempt is up to two passes: the route's primary
 * model, then, when the primary answered with a confidence below {@code llm.escalateBelow}, its escalation
 * model. The escalation's answer replaces the primary's only when it is valid; an escalation that fails in any
 * way leaves the primary's answer, already paid for, as the result.
 *
 * <p>Thread-safe: the per-provider state lives in {@link ProviderGate}s shared by every worker thread.
 */
public final class LlmSynthesizer implements MergeSynthesizer {

    public static final String NAME = "llm";

    private static final Logger LOG = LoggerFactory.getLogger(LlmSynthesizer.class);

    private final LlmSettings settings;
    private final Map<String, ProviderGate> gates;
    private final Map<String, ProviderClient> clients;
    private final LlmMetrics metrics;

    /**
     * The settings are read as they stand now; change them after construction and behaviour is undefined.
     *
     * @param registry where the {@code llm_*} metrics are registered; one synthesizer per registry
     * @throws IllegalArgumentException when {@link LlmSettings#problems()} reports anything; the message lists it
     */
    public LlmSynthesizer(LlmSettings settings, Clock clock, CollectorRegistry registry) {
        Objects.requireNonNull(clock, "clock");
        List<String> problems = settings.problems();
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("the llm settings cannot be used: " + String.join("; ", problems));
        }
        this.settings = settings;
        if (settings.getPrimaryModel().equals(settings.getEscalationModel())) {
            // The router never escalates to the model that just answered; without this line a low confidence
            // (a stand-in's --confidence 0.5, say) would pass without escalation and without a word.
            LOG.info("llm.escalationModel is the same model as llm.primaryModel ({}): escalation is off, and "
                    + "answers below llm.escalateBelow ({}) are kept as they are; set another escalation model to "
                    + "turn it on", settings.getPrimaryModel(), settings.getEscalateBelow());
        }
        Map<String, ProviderGate> gates = new LinkedHashMap<>();
        settings.getProviders().forEach((name, provider) -> gates.put(name,
                new ProviderGate(name, provider.keyVariable(), provider.getMaxConcurrency(), settings.getCircuit(),
                        clock)));
        this.gates = Collections.unmodifiableMap(gates);
        this.metrics = new LlmMetrics(registry, this.gates);
        Prompt prompt = Prompt.shipped();
        Map<String, ProviderClient> clients = new LinkedHashMap<>();
        settings.getProviders().forEach((name, provider) -> clients.put(name, new ProviderClient(name, provider,
                gates.get(name), prompt, metrics, clock, settings.getConcurrencyWait())));
        this.clients = Collections.unmodifiableMap(clients);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SuggestedMerge synthesize(ConflictSnapshot conflict, ResolvedModel model)
            throws SynthesisException, InterruptedException {
        return synthesizeWithCalls(conflict, model).merge();
    }

    @Override
    public Synthesis synthesizeWithCalls(ConflictSnapshot conflict, ResolvedModel model)
            throws SynthesisException, InterruptedException {
        return synthesizeWithCalls(conflict, model, CallRecorder.NONE);
    }

    @Override
    public Synthesis synthesizeWithCalls(ConflictSnapshot conflict, ResolvedModel model, CallRecorder early)
            throws SynthesisException, InterruptedException {
        PolicyRule winner = conflict.winner().orElseThrow(() -> new SynthesisException(
                "conflict " + conflict.conflictId() + " names winner_policy_id " + conflict.winnerPolicyId()
                        + ", but none of its " + conflict.rules().size() + " rules has that policy id"));
        List<ProviderCall> calls = new ArrayList<>();
        PassAnswer primary = ask(Pass.PRIMARY, model, conflict, winner, calls);
        ResolvedModel escalation = model.escalation();
        if (escalation == null || primary.confidence() >= settings.getEscalateBelow()) {
            return new Synthesis(primary.merge(), calls);
        }

        metrics.escalation();
        // On record before the second call: a replica killed during the escalation loses that call alone.
        early.answered(calls.get(primary.callIndex()));
        try {
            PassAnswer better = ask(Pass.ESCALATION, escalation, conflict, winner, calls);
            calls.set(primary.callIndex(), calls.get(primary.callIndex()).withDisposition(Disposition.DISCARDED));
            return new Synthesis(better.merge(), calls);
        } catch (SynthesisException e) {
            // Deferred, failed, invalid: the primary's answer is valid and paid for, so it stands.
            LOG.info("escalation to '{}' for conflict {} failed, keeping the primary answer: {}",
                    escalation.qualifiedName(), conflict.conflictId(), e.getMessage());
            return new Synthesis(primary.merge(), calls);
        }
    }

    private PassAnswer ask(Pass pass, ResolvedModel model, ConflictSnapshot conflict, PolicyRule winner,
                           List<ProviderCall> calls) throws SynthesisException, InterruptedException {
        ProviderClient client = clients.get(model.provider());
        if (client == null) {
            throw new SynthesisException("model '" + model.qualifiedName() + "' names provider '" + model.provider()
                    + "', which is not configured (configured: " + String.join(", ", clients.keySet()) + ")",
                    null, calls);
        }
        ModelPrice price = settings.getModels().get(model.qualifiedName());
        if (price == null) {
            // Calling a model we cannot price would put rows in the ledger that budgets cannot count.
            throw new SynthesisException("model '" + model.qualifiedName() + "' has no price under llm.models; "
                    + "not calling it", null, calls);
        }
        return client.ask(pass, model.model(), price, conflict, winner, calls);
    }

    /** The providers that cannot be used until someone acts (a refused key, a spend limit), for the health check. */
    @Override
    public Optional<String> problem() {
        String problems = gates.values().stream()
                .map(ProviderGate::problem)
                .flatMap(Optional::stream)
                .collect(Collectors.joining("; "));
        return problems.isEmpty() ? Optional.empty() : Optional.of(problems);
    }

    /** One circuit per configured provider, in the order of the configuration. */
    @Override
    public List<CircuitStatus> circuits() {
        return gates.values().stream().map(gate -> gate.circuit().status()).toList();
    }

    /** How many calls this replica currently allows itself in flight to the provider (AIMD). */
    public int concurrencyLimit(String provider) {
        ProviderGate gate = gates.get(provider);
        if (gate == null) {
            throw new IllegalArgumentException("no provider named '" + provider + "' is configured");
        }
        return gate.limit().limit();
    }

    @Override
    public String toString() {
        return "LlmSynthesizer{" + settings + "}";
    }
}
