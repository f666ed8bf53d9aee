package io.mergesynthesis.llm;

import io.mergesynthesis.synthesis.SynthesisDeferred;
import io.mergesynthesis.synthesis.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything every thread of this replica must agree on about one provider: whether it asked us to pause
 * (and until when), how many calls it may have in flight ({@link AdaptiveLimit}), how fast calls to each of its
 * models may start and whether a model asked to wait ({@link ModelLimits}), whether it is down
 * ({@link ProviderCircuit}), and whether it has a problem that no retry will fix (a refused key, a spend limit).
 * One gate per configured provider, shared by all workers, so that one 429 pauses everybody instead of each
 * thread finding out for itself. A 429 pauses the model it came from, as providers limit each model apart;
 * an overload, a refused key or a spend limit pause the whole provider.
 */
final class ProviderGate {

    private static final Logger LOG = LoggerFactory.getLogger(ProviderGate.class);

    /** A refused key is a configuration problem: retrying every second would only fill the provider's logs. */
    static final Duration REFUSED_KEY_PAUSE = Duration.ofSeconds(60);
    /** A spend limit stays reached until a person raises it; a long pause keeps calls from piling up meanwhile. */
    static final Duration SPEND_LIMIT_PAUSE = Duration.ofMinutes(10);

    private final String provider;
    private final String keyVariable;
    private final Clock clock;
    private final AdaptiveLimit limit;
    private final ProviderCircuit circuit;
    private final Ticker ticker;
    private final SharedLimits shared;
    private final Map<String, ModelLimits> models = new ConcurrentHashMap<>();
    private Pause pause; // guarded by this
    private String problem; // guarded by this

    /** A pause the provider asked for, and the reason calls are deferred while it lasts. */
    record Pause(SynthesisDeferred.Cause cause, Instant until) {
    }

    ProviderGate(String provider, String keyVariable, int maxConcurrency, CircuitSettings circuit, Clock clock,
                 Ticker ticker) {
        this(provider, keyVariable, maxConcurrency, circuit, clock, ticker, SharedLimits.NONE);
    }

    /** @param shared where the token limits of the provider's models are kept with the other replicas */
    ProviderGate(String provider, String keyVariable, int maxConcurrency, CircuitSettings circuit, Clock clock,
                 Ticker ticker, SharedLimits shared) {
        this.shared = shared;
        this.provider = provider;
        this.keyVariable = keyVariable;
        this.clock = clock;
        this.limit = new AdaptiveLimit(maxConcurrency, ticker);
        this.circuit = new ProviderCircuit(provider, circuit, clock);
        this.ticker = ticker;
    }

    String provider() {
        return provider;
    }

    AdaptiveLimit limit() {
        return limit;
    }

    /** Whether the provider is down for everyone, as opposed to failing one conflict. */
    ProviderCircuit circuit() {
        return circuit;
    }

    /** What limits calls to {@code model}: the limits the provider states for it, and its own pause. */
    ModelLimits model(String model) {
        return models.computeIfAbsent(model, m -> new ModelLimits(clock, ticker, shared,
                new SharedLimits.Key(provider, m)));
    }

    /** The requests per second this replica allows itself now to all the provider's models together. */
    double requestsPerSecond() {
        return perSecond(RateLimitHeaders.Kind.REQUESTS);
    }

    /** What this replica allows itself per second now under the limits of {@code kind}, all models together. */
    double perSecond(RateLimitHeaders.Kind kind) {
        return models.values().stream().mapToDouble(m -> m.perSecond(kind)).sum();
    }

    /** Whether the provider states a limit of {@code kind} for any model called. */
    boolean paced(RateLimitHeaders.Kind kind) {
        return models.values().stream().anyMatch(m -> m.paced(kind));
    }

    /** The pause in force now, if any. */
    synchronized Optional<Pause> activePause() {
        return pause != null && clock.instant().isBefore(pause.until()) ? Optional.of(pause) : Optional.empty();
    }

    /** The time left of a pause, never negative. */
    Duration remaining(Pause p) {
        Duration left = Duration.between(clock.instant(), p.until());
        return left.isNegative() ? Duration.ZERO : left;
    }

    /**
     * The provider throttled a call to {@code model}: a 429 pauses that model, an overload the whole provider.
     * The concurrency limit halves once per throttling episode: the calls already in flight when the first 429
     * came back will mostly get one too, and counting each of them would drive the limit to one for what was a
     * single event.
     *
     * @return how long calls to the model now wait
     */
    synchronized Duration throttled(SynthesisDeferred.Cause cause, String model, Duration wait) {
        Instant now = clock.instant();
        ModelLimits limits = model(model);
        boolean alreadyPaused = (pause != null && now.isBefore(pause.until())) || limits.paused().isPresent();
        if (!alreadyPaused) {
            limit.onThrottle();
        }
        if (cause == SynthesisDeferred.Cause.RATE_LIMITED) {
            limits.pause(wait);
            return limits.paused().orElse(Duration.ZERO);
        }
        extendPause(cause, now.plus(wait));
        return Duration.between(now, pause.until());
    }

    /** The provider refused the key: a problem for the health check, and a pause. */
    synchronized Duration refusedKey(int status) {
        report("provider '" + provider + "' refused its key (HTTP " + status + "): check " + keyVariable);
        Instant now = clock.instant();
        extendPause(SynthesisDeferred.Cause.REFUSED_KEY, now.plus(REFUSED_KEY_PAUSE));
        return Duration.between(now, pause.until());
    }

    /** The provider says the account may not spend more. */
    synchronized Duration spendLimitReached() {
        report("provider '" + provider + "' says the account's spend limit or quota is reached (HTTP 429): "
                + "raise it with the provider");
        Instant now = clock.instant();
        extendPause(SynthesisDeferred.Cause.PROVIDER_SPEND_LIMIT, now.plus(SPEND_LIMIT_PAUSE));
        return Duration.between(now, pause.until());
    }

    /** A call was answered usefully: the provider works, whatever it said before. */
    void succeeded() {
        limit.onSuccess();
        String cleared;
        synchronized (this) {
            cleared = problem;
            problem = null;
        }
        if (cleared != null) {
            LOG.info("provider '{}' answers again; cleared: {}", provider, cleared);
        }
    }

    synchronized Optional<String> problem() {
        return Optional.ofNullable(problem);
    }

    private void extendPause(SynthesisDeferred.Cause cause, Instant until) {
        if (pause == null || !pause.until().isAfter(until) || !clock.instant().isBefore(pause.until())) {
            pause = new Pause(cause, until);
        }
    }

    /** Logged once per problem, not once per call: a hundred workers hitting a bad key is one event. */
    private void report(String message) {
        if (!message.equals(problem)) {
            LOG.warn("{}", message);
        }
        problem = message;
    }
}
