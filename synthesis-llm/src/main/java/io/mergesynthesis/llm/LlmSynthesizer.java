package io.mergesynthesis.llm;

import com.fasterxml.jackson.databind.JsonNode;
import io.mergesynthesis.synthesis.CallRecorder;
import io.mergesynthesis.synthesis.CircuitStatus;
import io.mergesynthesis.synthesis.ProviderState;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.InvalidAnswerException;
import io.mergesynthesis.synthesis.MergeCheck;
import io.mergesynthesis.synthesis.MergeFinding;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.PolicyRule;
import io.mergesynthesis.synthesis.ProviderCall;
import io.mergesynthesis.synthesis.ProviderCall.Disposition;
import io.mergesynthesis.synthesis.ProviderCall.Pass;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.SuggestedMerge;
import io.mergesynthesis.synthesis.Synthesis;
import io.mergesynthesis.synthesis.SynthesisDeferred;
import io.mergesynthesis.synthesis.SynthesisException;
import io.mergesynthesis.synthesis.Ticker;
import io.opentelemetry.api.OpenTelemetry;
import io.prometheus.client.CollectorRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes suggested merges by asking a model provider. One attempt is up to two passes, each a paid call:
 *
 * <ul>
 *   <li>the route's primary model answers, and its merge goes through the {@link MergeCheck} at once;</li>
 *   <li>a merge the check refused goes to a second pass that is also its repair: the escalation model gets the
 *       conflict, the refused answer as the model's own turn and the check's findings, and answers again. A route
 *       without an escalation model sends the repair to the primary model itself, since a model told why its
 *       answer was refused often corrects it, and no attempt should end without that chance. The repaired merge
 *       is checked too; if it is refused as well, or the repair pass cannot be made at all (deferred, failed,
 *       unreadable), the attempt fails with an {@link InvalidAnswerException} naming the findings and carrying
 *       every paid call. A refused merge is never returned, whatever confidence came with it;</li>
 *   <li>a merge that passed the check but came with a confidence below {@code llm.escalateBelow} goes to the
 *       escalation model, as a plain second opinion. The escalation's answer replaces the primary's only when it
 *       is valid and passes the check; an escalation that fails in any way leaves the primary's answer, already
 *       paid for and checked, as the result.</li>
 * </ul>
 *
 * <p>A second pass whose model is paused (a 429) or paced by the limits its provider states waits for it, when
 * the wait and the pass itself still fit in the attempt's invoke timeout; only a wait that would not fit gives up
 * (keeping the primary's answer, or failing the repair as above). Such waits are counted in
 * {@code llm_escalation_waits_total}.
 *
 * <p>Refused calls are marked {@link Disposition#REFUSED} and counted in {@link MergeCheckRefusals}.
 *
 * <p>Thread-safe: the per-provider state lives in {@link ProviderGate}s shared by every worker thread.
 */
public final class LlmSynthesizer implements MergeSynthesizer {

    public static final String NAME = "llm";

    private static final Logger LOG = LoggerFactory.getLogger(LlmSynthesizer.class);

    /** What a second pass may wait for: a pause or a pace that ends by itself. */
    private static final Set<SynthesisDeferred.Cause> WAITED_FOR = EnumSet.of(SynthesisDeferred.Cause.RATE_LIMITED,
            SynthesisDeferred.Cause.AT_CONCURRENCY_LIMIT, SynthesisDeferred.Cause.OVERLOADED);
    /** A deferral that names no wait is tried again after this much, not at once. */
    static final Duration MIN_SECOND_PASS_WAIT = Duration.ofMillis(10);
    /** Left over when a waited-for pass has taken its longest, as the service asks of the passes' sum. */
    static final Duration SECOND_PASS_SPARE = Duration.ofSeconds(1);

    private final LlmSettings settings;
    private final Map<String, ProviderGate> gates;
    private final Map<String, ProviderClient> clients;
    private final LlmMetrics metrics;
    private final Ticker ticker;
    private final Duration invokeTimeout;
    private final Sleeper sleeper;

    /** A synthesizer that traces nothing and never waits for a second pass; see the full constructor. */
    public LlmSynthesizer(LlmSettings settings, Clock clock, Ticker ticker, CollectorRegistry registry) {
        this(settings, clock, ticker, registry, Duration.ZERO, OpenTelemetry.noop());
    }

    /** A synthesizer that never waits for a second pass; see the full constructor. */
    public LlmSynthesizer(LlmSettings settings, Clock clock, Ticker ticker, CollectorRegistry registry,
                          OpenTelemetry telemetry) {
        this(settings, clock, ticker, registry, Duration.ZERO, telemetry);
    }

    /**
     * The settings are read as they stand now; change them after construction and behaviour is undefined.
     *
     * @param clock     the time of day, for pauses a provider names and the merge's {@code generated_at}
     * @param ticker    elapsed time, for the wait for a slot or a turn and each call's latency
     * @param registry  where the {@code llm_*} metrics are registered; one synthesizer per registry
     * @param invokeTimeout how long the worker gives an attempt: a second pass may wait for its model as long
     *                  as the wait and the pass still fit in it, with a second to spare; zero never waits
     * @param telemetry where each provider call's client span goes (docs/adr/0048); {@link OpenTelemetry#noop()}
     *                  traces nothing
     * @throws IllegalArgumentException when {@link LlmSettings#problems()} reports anything; the message lists it
     */
    public LlmSynthesizer(LlmSettings settings, Clock clock, Ticker ticker, CollectorRegistry registry,
                          Duration invokeTimeout, OpenTelemetry telemetry) {
        this(settings, clock, ticker, registry, invokeTimeout, Sleeper.SYSTEM, telemetry, SharedLimits.NONE);
    }

    /**
     * As the constructor above, with the providers' token limits kept in {@code shared} with the other replicas
     * of the deployment; {@link SharedLimits#NONE} paces each replica from its own answers alone.
     */
    public LlmSynthesizer(LlmSettings settings, Clock clock, Ticker ticker, CollectorRegistry registry,
                          Duration invokeTimeout, OpenTelemetry telemetry, SharedLimits shared) {
        this(settings, clock, ticker, registry, invokeTimeout, Sleeper.SYSTEM, telemetry, shared);
    }

    /** A synthesizer that traces nothing, for tests that move time by hand through {@code sleeper}. */
    LlmSynthesizer(LlmSettings settings, Clock clock, Ticker ticker, CollectorRegistry registry,
                   Duration invokeTimeout, Sleeper sleeper) {
        this(settings, clock, ticker, registry, invokeTimeout, sleeper, OpenTelemetry.noop(), SharedLimits.NONE);
    }

    LlmSynthesizer(LlmSettings settings, Clock clock, Ticker ticker, CollectorRegistry registry,
                   Duration invokeTimeout, Sleeper sleeper, OpenTelemetry telemetry, SharedLimits shared) {
        Objects.requireNonNull(shared, "shared");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(telemetry, "telemetry");
        Objects.requireNonNull(ticker, "ticker");
        List<String> problems = settings.problems();
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("the llm settings cannot be used: " + String.join("; ", problems));
        }
        this.settings = settings;
        this.ticker = ticker;
        this.invokeTimeout = Objects.requireNonNull(invokeTimeout, "invokeTimeout");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
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
                        clock, ticker, shared)));
        this.gates = Collections.unmodifiableMap(gates);
        this.metrics = new LlmMetrics(registry, this.gates);
        Prompt prompt = Prompt.shipped();
        Map<String, ProviderClient> clients = new LinkedHashMap<>();
        settings.getProviders().forEach((name, provider) -> clients.put(name, new ProviderClient(name, provider,
                gates.get(name), prompt, metrics, clock, ticker, settings.getConcurrencyWait(),
                new ProviderCallSpans(telemetry, provider.getType(), provider.trimmedBaseUrl()))));
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
        long started = ticker.nanos();
        List<ProviderCall> calls = new ArrayList<>();
        PassAnswer primary = ask(Pass.PRIMARY, model, conflict, winner, calls, null);
        return afterPrimary(conflict, model, winner, primary, calls, early, started);
    }

    /**
     * The rest of an attempt whose first answer came from a provider's batch ({@code answer}, as a single call
     * would have been answered): the same check, repair and escalation as {@link #synthesizeWithCalls}, the second
     * pass an interactive call. The batch's call is the first of the result's calls, at the batch price, with the
     * given id and time so that reading the same result again is the same ledger row.
     *
     * @param model the route the batch went by, with its escalation model when there is one
     */
    public Synthesis continueFromBatch(ConflictSnapshot conflict, ResolvedModel model, JsonNode answer, UUID callId,
                                       Instant answered, CallRecorder early)
            throws SynthesisException, InterruptedException {
        ProviderSettings provider = settings.getProviders().get(model.provider());
        ModelPrice price = settings.getModels().get(model.qualifiedName());
        if (provider == null || price == null) {
            throw new SynthesisException("model '" + model.qualifiedName() + "' is not configured here with a "
                    + "provider and a price: its batch answer cannot be read");
        }
        List<ProviderCall> calls = new ArrayList<>();
        PolicyRule winner = conflict.winner().orElseThrow(() -> new InvalidAnswerException("conflict "
                + conflict.conflictId() + " names a winner none of its rules has",
                List.of(BatchAnswer.call(provider.getType(), answer, model.provider(), model.model(), price, callId,
                        answered))));
        long started = ticker.nanos();
        PassAnswer primary = BatchAnswer.pass(provider.getType(), answer, conflict, winner, model.provider(),
                model.model(), price, provider.getMaxAnswerBytes(), callId, answered, calls);
        return afterPrimary(conflict, model, winner, primary, calls, early, started);
    }

    /** What follows a first answer: the check, then a repair or an escalation when either is called for. */
    private Synthesis afterPrimary(ConflictSnapshot conflict, ResolvedModel model, PolicyRule winner,
                                   PassAnswer primary, List<ProviderCall> calls, CallRecorder early, long started)
            throws SynthesisException, InterruptedException {
        List<MergeFinding> refused = MergeCheck.check(conflict, primary.merge());
        if (!refused.isEmpty()) {
            return repair(conflict, model, winner, primary, refused, calls, early, started);
        }
        ResolvedModel escalation = model.escalation();
        if (escalation == null || primary.confidence() >= settings.getEscalateBelow()) {
            return new Synthesis(primary.merge(), calls);
        }

        metrics.escalation();
        // On record before the second call: a replica killed during the escalation loses that call alone.
        early.answered(calls.get(primary.callIndex()));
        PassAnswer better;
        try {
            better = secondPass(escalation, conflict, winner, calls, null, started, early);
        } catch (SynthesisException e) {
            // Deferred, failed, invalid: the primary's answer is valid, checked and paid for, so it stands.
            LOG.info("escalation to '{}' for conflict {} failed, keeping the primary answer: {}",
                    escalation.qualifiedName(), conflict.conflictId(), e.getMessage());
            return new Synthesis(primary.merge(), calls);
        }
        List<MergeFinding> findings = MergeCheck.check(conflict, better.merge());
        if (!findings.isEmpty()) {
            refuse(better, findings, calls);
            LOG.info("the merge check refused the escalation's answer from '{}' for conflict {} ({}), keeping the"
                    + " primary answer", escalation.qualifiedName(), conflict.conflictId(), codes(findings));
            return new Synthesis(primary.merge(), calls);
        }
        calls.set(primary.callIndex(), calls.get(primary.callIndex()).withDisposition(Disposition.DISCARDED));
        return new Synthesis(better.merge(), calls);
    }

    /** The second pass after the check refused the primary's merge: the repaired merge, or the attempt fails. */
    private Synthesis repair(ConflictSnapshot conflict, ResolvedModel model, PolicyRule winner, PassAnswer primary,
                             List<MergeFinding> refused, List<ProviderCall> calls, CallRecorder early,
                             long started) throws SynthesisException, InterruptedException {
        refuse(primary, refused, calls);
        ResolvedModel second = model.escalation() != null ? model.escalation() : model;
        String first = "the merge check refused the answer of '" + model.qualifiedName() + "' " + codes(refused);
        // On record before the second call, as before an escalation.
        early.answered(calls.get(primary.callIndex()));
        PassAnswer repaired;
        try {
            repaired = secondPass(second, conflict, winner, calls, new Repair(primary.answerJson(), refused), started,
                    early);
        } catch (SynthesisException e) {
            // The summary, which the conflict's org reads, leaves out the second call's error: it may be a provider's.
            throw new InvalidAnswerException(first + " and its repair by '" + second.qualifiedName()
                    + "' could not be made (" + shortened(e.getMessage()) + "): " + sentences(refused),
                    "the merge check refused the answer " + codes(refused) + ", and no repair could be made: "
                            + sentences(refused), calls);
        }
        List<MergeFinding> again = MergeCheck.check(conflict, repaired.merge());
        if (again.isEmpty()) {
            return new Synthesis(repaired.merge(), calls);
        }
        refuse(repaired, again, calls);
        throw new InvalidAnswerException(first + " and its repair by '" + second.qualifiedName() + "' "
                + codes(again) + ": " + sentences(again),
                "the merge check refused the answer " + codes(refused) + " and its repair " + codes(again) + ": "
                        + sentences(again), calls);
    }

    /**
     * The second pass of an attempt begun at {@code started} (on the ticker). A deferral that only asks to wait a
     * while (the model paused by a 429, paced, at its concurrency limit, overloaded) is waited out and the pass
     * asked again, as long as the wait and the pass itself still fit in the invoke timeout; otherwise it is
     * thrown, and the caller keeps what the first pass paid for.
     */
    private PassAnswer secondPass(ResolvedModel model, ConflictSnapshot conflict, PolicyRule winner,
                                  List<ProviderCall> calls, Repair repair, long started, CallRecorder early)
            throws SynthesisException, InterruptedException {
        boolean waited = false;
        while (true) {
            int before = calls.size();
            try {
                return ask(Pass.ESCALATION, model, conflict, winner, calls, repair);
            } catch (SynthesisDeferred deferred) {
                Duration wait = deferred.retryAfter().compareTo(MIN_SECOND_PASS_WAIT) > 0 ? deferred.retryAfter()
                        : MIN_SECOND_PASS_WAIT;
                if (!WAITED_FOR.contains(deferred.deferral()) || !fits(model, started, wait)) {
                    throw deferred;
                }
                // A call the provider answered with "wait" (a 429, an overload) is paid or counted all the same:
                // on record before the wait, so a replica killed while waiting or asking again loses at most the
                // one call it has in flight.
                for (ProviderCall answered : calls.subList(before, calls.size())) {
                    early.answered(answered);
                }
                if (!waited) {
                    metrics.escalationWaited();
                    waited = true;
                }
                LOG.debug("second pass of conflict {} waits {} ms for '{}': {}", conflict.conflictId(),
                        wait.toMillis(), model.qualifiedName(), deferred.getMessage());
                sleeper.sleep(wait);
            }
        }
    }

    /**
     * Whether the pass to {@code model} still fits in the invoke timeout after waiting {@code wait}: the whole
     * pass (its wait for a slot and its request timeout) and a second to spare.
     */
    private boolean fits(ResolvedModel model, long started, Duration wait) {
        ProviderSettings provider = settings.getProviders().get(model.provider());
        if (provider == null) {
            return false;
        }
        Duration pass = settings.getConcurrencyWait().plus(provider.getRequestTimeout()).plus(SECOND_PASS_SPARE);
        Duration left = invokeTimeout.minusNanos(ticker.nanos() - started);
        return wait.plus(pass).compareTo(left) <= 0;
    }

    private void refuse(PassAnswer answer, List<MergeFinding> findings, List<ProviderCall> calls) {
        metrics.refused(findings);
        calls.set(answer.callIndex(), calls.get(answer.callIndex()).withDisposition(Disposition.REFUSED));
    }

    /** The codes first, so that a history detail cut at its length limit still names them. */
    private static String codes(List<MergeFinding> findings) {
        return findings.stream().map(f -> f.code().wireName()).distinct()
                .collect(Collectors.joining(", ", "[", "]"));
    }

    private static String sentences(List<MergeFinding> findings) {
        return findings.stream().map(MergeFinding::toString).collect(Collectors.joining("; "));
    }

    private static String shortened(String message) {
        return message == null || message.length() <= 200 ? message : message.substring(0, 200) + "...";
    }

    private PassAnswer ask(Pass pass, ResolvedModel model, ConflictSnapshot conflict, PolicyRule winner,
                           List<ProviderCall> calls, Repair repair) throws SynthesisException, InterruptedException {
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
        return client.ask(pass, model.model(), price, conflict, winner, calls, repair);
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

    /** Each provider's circuit, concurrency limit and pace, in the order of the configuration. */
    @Override
    public List<ProviderState> providerStates() {
        return gates.values().stream().map(gate -> new ProviderState(gate.circuit().status(), gate.limit().limit(),
                gate.requestsPerSecond())).toList();
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
