package io.mergesynthesis.llm;

import io.mergesynthesis.llm.ProviderPace.Charge;
import io.mergesynthesis.llm.RateLimitHeaders.Kind;
import io.mergesynthesis.synthesis.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Everything that limits this replica's calls to one model of one provider: a {@link Pace} for each kind of limit
 * the provider may state (both protocols limit each model on its own; requests in periods, tokens as buckets),
 * the rate learnt from 429s when it states none ({@link UnstatedRate}), the pause a 429 from this model asked for, and the token counts of its last answers, from which a call is charged before it is sent. A call
 * starts when every stated limit has room for it; waiting calls take their turns first come, first served.
 */
final class ModelLimits {

    /** What a call waiting for an answer before it may go expects to wait; the answer wakes it. */
    static final Duration FIRST_ANSWER_WAIT = Duration.ofMillis(50);
    /** The shortest nap of a waiting call, besides being woken. */
    private static final long MIN_NAP_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** Waiters behind others with no wait of their own look again at least this often, besides being woken. */
    private static final long BEHIND_NAP_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final Clock clock;
    private final Ticker ticker;
    private final SharedLimits shared;
    private final SharedLimits.Key key;
    private final Map<Kind, Pace> paces;
    private final UnstatedRate unstated;
    private final RecentTokens input = new RecentTokens();
    private final RecentTokens output = new RecentTokens();
    private final ArrayDeque<Object> waiting = new ArrayDeque<>(); // guarded by this; calls waiting, in order
    private Instant pausedUntil = Instant.MIN; // guarded by this
    private Instant lastRefusedSentAt; // guarded by this; when the last call the provider did not take was sent
    private boolean statesLimits; // guarded by this; whether the last answer taken stated any limit
    private int flying; // guarded by this; calls started and not yet ended
    private long taken; // guarded by this; calls the provider answered and took
    private Instant sharedDue = Instant.MIN; // guarded by this; when the shared buckets said a call may start

    /**
     * A call's place under every limit: its number and charge in each pace, and what it holds of the buckets
     * shared with the other replicas.
     */
    record Turn(Map<Kind, Long> calls, Map<Kind, Charge> charges, SharedLimits.Reservation reservation) {

        /** The {@code max_tokens} the call was charged with: what its request must ask for. */
        int maxTokens() {
            return (int) charges.get(Kind.OUTPUT_TOKENS).held();
        }
    }

    /** The limits of one model, each kept by this replica alone. */
    ModelLimits(Clock clock, Ticker ticker) {
        this(clock, ticker, SharedLimits.NONE, new SharedLimits.Key("", ""));
    }

    /** The limits of the model {@code key}, its token limits kept in {@code shared} while that store is available. */
    ModelLimits(Clock clock, Ticker ticker, SharedLimits shared, SharedLimits.Key key) {
        this.clock = clock;
        this.ticker = ticker;
        this.shared = shared;
        this.key = key;
        Map<Kind, Pace> paces = new EnumMap<>(Kind.class);
        paces.put(Kind.REQUESTS, new ProviderPace(clock));
        // Both providers' token limits are buckets that refill continuously.
        paces.put(Kind.INPUT_TOKENS, new BucketPace(clock));
        paces.put(Kind.OUTPUT_TOKENS, new BucketPace(clock));
        paces.put(Kind.TOKENS, new BucketPace(clock));
        this.paces = Collections.unmodifiableMap(paces);
        this.unstated = new UnstatedRate(clock);
    }

    /**
     * What a call is charged under each limit before it is sent: one request; the input tokens of the last calls
     * (a high percentile held, their mean expected), or {@code requestBytes} / 4 before any answer said; its
     * {@code max_tokens} held while it runs, expected to cost what the last answers wrote on average. While this
     * replica has had no answer, the input is a guess, which the call's reservation raises to what the deployment
     * counted ({@link #withDeploymentsCount}).
     */
    Map<Kind, Charge> charges(long maxTokens, long requestBytes) {
        double fallback = Math.max(1, requestBytes / 4);
        double in = input.estimate().orElse((long) fallback);
        double inExpected = Math.min(in, input.mean().orElse(fallback));
        double out = Math.min(maxTokens, output.mean().orElse(maxTokens));
        Map<Kind, Charge> charges = new EnumMap<>(Kind.class);
        charges.put(Kind.REQUESTS, Charge.ONE_REQUEST);
        charges.put(Kind.INPUT_TOKENS, new Charge(in, inExpected));
        charges.put(Kind.OUTPUT_TOKENS, new Charge(maxTokens, out));
        charges.put(Kind.TOKENS, new Charge(in + maxTokens, inExpected + out));
        return charges;
    }

    /**
     * {@code charges} as reserved in the shared buckets: while this replica has had no answer of its own, its
     * calls' input is a guess from their size, which falls short for text dense in punctuation, as JSON is; they
     * are charged no less than what the provider counted of the deployment's last call of the model. A replica
     * joining a deployment whose bucket is near empty would otherwise send calls the store lets go and the
     * provider refuses.
     */
    private Map<Kind, Charge> withDeploymentsCount(Map<Kind, Charge> charges) {
        if (input.estimate().isPresent() || !shared.available()) {
            return charges;
        }
        double counted = shared.lastCounted(key).getOrDefault(Kind.INPUT_TOKENS, 0.0);
        double more = counted - charges.get(Kind.INPUT_TOKENS).held();
        if (more <= 0) {
            return charges;
        }
        Map<Kind, Charge> raised = new EnumMap<>(charges);
        raised.put(Kind.INPUT_TOKENS, new Charge(counted, counted));
        Charge both = charges.get(Kind.TOKENS);
        raised.put(Kind.TOKENS, new Charge(both.held() + more, both.expected() + more));
        return raised;
    }

    /**
     * Waits until a call charged {@code charges} may start under every stated limit, at most {@code maxWait}, and
     * counts it as started.
     *
     * @return the call's turn, for {@link #answered}; empty, at once, when its turn would come later
     */
    synchronized Optional<Turn> awaitStart(Duration maxWait, Map<Kind, Charge> charges) throws InterruptedException {
        return awaitStart(maxWait, () -> charges);
    }

    /**
     * As above, the call charged what {@code charging} says when it looks: {@link #charges} follows this replica's
     * answers, and a call that waited may have waited through some.
     */
    synchronized Optional<Turn> awaitStart(Duration maxWait, Supplier<Map<Kind, Charge>> charging)
            throws InterruptedException {
        long deadline = ticker.nanos() + maxWait.toNanos();
        Object me = new Object();
        waiting.addLast(me);
        try {
            while (true) {
                Map<Kind, Charge> charges = charging.get();
                Duration wait = untilTurn(ahead(me), charges);
                long roundTrip = 0;
                if (wait.isZero() && waiting.peekFirst() == me) {
                    charges = withDeploymentsCount(charges);
                    long asked = ticker.nanos();
                    SharedLimits.Reservation reservation = reserve(charges);
                    if (reservation.granted()) {
                        return Optional.of(start(charges, reservation));
                    }
                    roundTrip = ticker.nanos() - asked;
                    wait = reservation.until();
                    sharedDue = clock.instant().plus(wait);
                }
                if (wait.toNanos() > deadline - ticker.nanos()) {
                    return Optional.empty();
                }
                // A newer answer may shorten the wait, a call ahead leaving end it; both wake us. A call behind
                // others with no wait of its own waits for them to leave, which wakes it too: it looks again only
                // now and then, not every millisecond.
                long nap = wait.isZero() ? Math.min(BEHIND_NAP_NANOS, deadline - ticker.nanos())
                        : napBeforeAskingAgain(wait, roundTrip);
                TimeUnit.NANOSECONDS.timedWait(this, Math.max(nap, MIN_NAP_NANOS));
            }
        } finally {
            waiting.remove(me);
            notifyAll();
        }
    }

    /**
     * How long, in nanoseconds, a call told to wait {@code wait} sleeps before it looks again, when the shared
     * buckets' refusal took {@code roundTripNanos} (0 when the wait is this replica's own). The store measured the
     * wait when it looked; its answer took part of the round trip to come back, and the next reservation takes
     * about as long to reach it: sleeping the round trip less lets that one arrive as the tokens do, instead of a
     * round trip late at every turn.
     */
    static long napBeforeAskingAgain(Duration wait, long roundTripNanos) {
        return Math.max(MIN_NAP_NANOS, wait.toNanos() - roundTripNanos);
    }

    /**
     * Reserves the call's token charges in the buckets shared with the other replicas, when a store keeps them:
     * one round trip to it, made by the call at the head of the line only.
     */
    private SharedLimits.Reservation reserve(Map<Kind, Charge> charges) {
        if (!shared.available()) {
            return SharedLimits.Reservation.UNSHARED;
        }
        Map<Kind, Double> held = new EnumMap<>(Kind.class);
        for (Kind kind : SharedLimits.KINDS) {
            held.put(kind, charges.get(kind).held());
        }
        return shared.reserve(key, held);
    }

    private int ahead(Object me) {
        int n = 0;
        for (Object waiter : waiting) {
            if (waiter == me) {
                return n;
            }
            n++;
        }
        return n;
    }

    /**
     * The longest of the waits the limits ask of a call with {@code ahead} calls waiting before it.
     *
     * <p>Until the provider has stated a limit or refused a call, calls in flight are at most one more than the
     * calls it has taken: the first goes alone, and each answer lets two more go. The first answer states the
     * limits and how much of them someone else has already spent, which a burst sent before it would meet
     * unread; a provider that states nothing meets a ramp rather than a burst at its first 429.
     */
    private Duration untilTurn(int ahead, Map<Kind, Charge> charges) {
        if (!statesLimits && !unstated.learnt() && flying > taken) {
            return FIRST_ANSWER_WAIT;
        }
        // The learnt rate stands in for the limits only while the provider states none.
        Duration longest = statesLimits ? Duration.ZERO : unstated.untilStart(ahead);
        boolean sharing = shared.available();
        for (Map.Entry<Kind, Pace> pace : paces.entrySet()) {
            if (sharing && SharedLimits.KINDS.contains(pace.getKey())) {
                continue; // the shared buckets keep it, for every replica at once
            }
            Duration wait = pace.getValue().untilStart(charges.get(pace.getKey()), ahead);
            if (wait.compareTo(longest) > 0) {
                longest = wait;
            }
        }
        return longest;
    }

    private Turn start(Map<Kind, Charge> charges, SharedLimits.Reservation reservation) {
        Map<Kind, Long> calls = new EnumMap<>(Kind.class);
        paces.forEach((kind, pace) -> calls.put(kind, pace.start(charges.get(kind))));
        unstated.started();
        flying++;
        return new Turn(calls, charges, reservation);
    }

    /** How long until the next call like the last one may start under every limit; zero for now. */
    synchronized Duration untilNextStart() {
        Duration learnt = statesLimits ? Duration.ZERO : unstated.untilStart(0);
        boolean sharing = shared.available();
        Instant now = clock.instant();
        Duration sharedWait = sharing && sharedDue.isAfter(now) ? Duration.between(now, sharedDue) : Duration.ZERO;
        return paces.entrySet().stream()
                .filter(pace -> !(sharing && SharedLimits.KINDS.contains(pace.getKey())))
                .map(pace -> pace.getValue().untilNextStart())
                .reduce(learnt.compareTo(sharedWait) >= 0 ? learnt : sharedWait,
                        (a, b) -> a.compareTo(b) >= 0 ? a : b);
    }

    /**
     * The answer to {@code turn}, sent at {@code sentAt}, stated these limits (a limit it does not state is no
     * longer paced), and the provider counted {@code usage} for it.
     *
     * @param counted whether the provider answered the call (any 2xx): only then do its counts tell what the next
     *                calls will cost
     */
    void answered(Turn turn, Instant sentAt, Map<Kind, RateLimitHeaders.Stated> stated, Usage usage,
                  boolean counted) {
        synchronized (this) {
            answeredHere(turn, sentAt, stated, usage, counted);
        }
        // The shared buckets are settled outside this replica's lock: its other calls need not wait for the store.
        if (turn.reservation().shared()) {
            shared.settle(key, endings(turn, stated, usage, counted));
            synchronized (this) {
                notifyAll(); // what came back may let a waiting call start
            }
        }
    }

    /**
     * How the call of {@code turn} ended under each shared limit. The provider counts a call's input as it takes
     * it and holds its {@code max_tokens} until it ends; a refused call it does not count at all.
     */
    private static Map<Kind, SharedLimits.Ending> endings(Turn turn, Map<Kind, RateLimitHeaders.Stated> stated,
                                                          Usage usage, boolean counted) {
        long uncachedInput = usage.inputTokens() + usage.cacheWriteTokens();
        double outputHeld = turn.charges().get(Kind.OUTPUT_TOKENS).held();
        Map<Kind, SharedLimits.Ending> endings = new EnumMap<>(Kind.class);
        turn.reservation().held().forEach((kind, reserved) -> {
            double held = turn.charges().get(kind).held();
            double spent = switch (kind) {
                case INPUT_TOKENS -> uncachedInput;
                case OUTPUT_TOKENS -> usage.outputTokens();
                case TOKENS -> uncachedInput + usage.outputTokens();
                case REQUESTS -> 1;
            };
            double countedAtStart = !counted ? 0 : switch (kind) {
                case INPUT_TOKENS -> uncachedInput;
                case OUTPUT_TOKENS -> held;
                case TOKENS -> uncachedInput + outputHeld;
                case REQUESTS -> 1;
            };
            double returned = counted ? held - spent : held;
            endings.put(kind, new SharedLimits.Ending(held, returned, held - countedAtStart,
                    Optional.ofNullable(stated.get(kind)), true, reserved));
        });
        return endings;
    }

    private void answeredHere(Turn turn, Instant sentAt, Map<Kind, RateLimitHeaders.Stated> stated, Usage usage,
                              boolean counted) {
        flying--;
        long uncachedInput = usage.inputTokens() + usage.cacheWriteTokens();
        paces.forEach((kind, pace) -> pace.answered(turn.calls().get(kind), sentAt,
                Optional.ofNullable(stated.get(kind)), switch (kind) {
                    case REQUESTS -> 1;
                    case INPUT_TOKENS -> uncachedInput;
                    case OUTPUT_TOKENS -> usage.outputTokens();
                    case TOKENS -> uncachedInput + usage.outputTokens();
                }, counted));
        if (counted) {
            input.record(uncachedInput);
            output.record(usage.outputTokens());
            unstated.answered(sentAt);
            taken++;
            statesLimits = !stated.isEmpty();
        } else {
            // A refusal that names a limit states it; one that only says nothing is left until a reset, as some
            // providers that state no limit do on their 429s, does not.
            statesLimits |= stated.values().stream().anyMatch(s -> s.limit().isPresent());
            lastRefusedSentAt = sentAt;
        }
        notifyAll();
    }

    /** The call of {@code turn} got no answer. */
    void unanswered(Turn turn) {
        synchronized (this) {
            flying--;
            paces.forEach((kind, pace) -> pace.unanswered(turn.calls().get(kind)));
            notifyAll();
        }
        if (turn.reservation().shared()) {
            // The provider may have counted it: its hold stays taken, and the bucket's refill repairs it.
            Map<Kind, SharedLimits.Ending> endings = new EnumMap<>(Kind.class);
            turn.reservation().held().forEach((kind, reserved) -> endings.put(kind, new SharedLimits.Ending(
                    turn.charges().get(kind).held(), 0, 0, Optional.empty(), false, reserved)));
            shared.settle(key, endings);
        }
    }

    /**
     * What this replica allows itself per second now under the limit of {@code kind}; for requests, the rate
     * learnt from 429s while the provider states no limit; zero when not pacing.
     */
    double perSecond(Kind kind) {
        if (kind == Kind.REQUESTS && !statesLimits) {
            return unstated.perSecond();
        }
        return paces.get(kind).perSecond();
    }

    /**
     * Whether the model has answered this replica or stated its limits: until then nothing is known of how much
     * of them is left.
     */
    synchronized boolean heardFrom() {
        return statesLimits || taken > 0;
    }

    /** Whether the provider states a limit of {@code kind} for this model. */
    boolean paced(Kind kind) {
        return paces.get(kind).pacing();
    }

    /** The model answered 429: no call to it starts for {@code wait}. */
    synchronized void pause(Duration wait) {
        Instant now = clock.instant();
        if (!now.isBefore(pausedUntil) && !statesLimits) {
            // The first 429 of an episode from a provider that states no limit at all: the rate it let through
            // is learnt from the answers before the refused call.
            unstated.throttled(lastRefusedSentAt == null ? now : lastRefusedSentAt, now.plus(wait));
        }
        Instant until = now.plus(wait);
        if (until.isAfter(pausedUntil)) {
            pausedUntil = until;
        }
    }

    /** What is left of this model's pause; empty when none holds. */
    synchronized Optional<Duration> paused() {
        Instant now = clock.instant();
        return now.isBefore(pausedUntil) ? Optional.of(Duration.between(now, pausedUntil)) : Optional.empty();
    }
}
