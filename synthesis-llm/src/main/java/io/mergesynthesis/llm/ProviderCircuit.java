package io.mergesynthesis.llm;

import io.mergesynthesis.synthesis.CircuitStatus;
import io.mergesynthesis.synthesis.SynthesisDeferred;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a provider that is down from a conflict that fails, for one provider on this replica.
 *
 * <p>Only failures an outage produces are looked at here: no connection, no answer in time, a 5xx. Such a failure
 * counts against the conflict only when the provider answered a call let out after that conflict's previous such
 * failure: it answers others, so the failure is the conflict's own. Otherwise nothing says the provider is up. A
 * conflict's first such failure is handed back uncounted, once; a second one with no answer since opens the
 * circuit at once, however few conflicts wait, and so do such failures of {@code openAfter} different conflicts
 * in a row.
 *
 * <p>While the circuit is open calls are held back (the conflict is handed back with no attempt counted) and the
 * provider is probed with a request that costs nothing (its model list), never with a conflict: the first probe a
 * second later, then at a doubling interval up to a cap. Any answer to the probe closes the circuit, and the call
 * that asked for it goes out next; so does any answer to a call let out since the circuit opened, but not a late
 * answer to a call sent before it. A conflict the provider always fails while nobody else calls therefore still
 * reaches its marker: each probe's answer is an answer let out after its previous failure, so every other failure
 * counts.
 */
final class ProviderCircuit {

    private static final Logger LOG = LoggerFactory.getLogger(ProviderCircuit.class);

    /** Conflicts' last outage-like failures are remembered up to this many; the oldest are forgotten first. */
    static final int REMEMBERED_FAILURES = 10_000;

    /** How the circuit stands; the gauge {@code llm_circuit_state} reports the ordinal. */
    enum State {
        /** Calls go out. */
        CLOSED,
        /** Calls are held back until the next probe. */
        OPEN,
        /** One call is out to see whether the provider answers again; the others are held back. */
        PROBING
    }

    /**
     * A call let out: whether it is the probe, which opening of the circuit it was let out under (calls let out
     * before an opening carry an older one), and its place in the order calls were let out.
     */
    record Ticket(boolean probe, long epoch, long order) {
    }

    /** What a failure means for the conflict that met it. */
    record Verdict(SynthesisDeferred.Cause deferral, Duration retryAfter) {

        static final Verdict COUNTS = new Verdict(null, Duration.ZERO);

        /** True when the failure counts against the conflict, as any failure did before there was a circuit. */
        boolean counts() {
            return deferral == null;
        }
    }

    private final String provider;
    private final CircuitSettings settings;
    private final Clock clock;

    private State state = State.CLOSED;
    private final Set<UUID> streak = new LinkedHashSet<>();
    /** Per conflict, how many calls had been let out when it last met an outage-like failure. */
    private final Map<UUID, Long> lastFailure = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<UUID, Long> eldest) {
            return size() > REMEMBERED_FAILURES;
        }
    };
    private long letOut;
    private long lastAnswered; // the order of the latest-let-out call that was answered
    private Duration interval;
    private Instant openedAt;
    private String openedBecause = "";
    private Instant nextProbeAt;
    private int failedProbes;
    private String lastFailureText = "";
    private long openings; // also the epoch: each opening starts a new one

    ProviderCircuit(String provider, CircuitSettings settings, Clock clock) {
        this.provider = provider;
        this.settings = settings;
        this.clock = clock;
        this.interval = settings.getFirstProbeAfter();
    }

    /**
     * Asks to make a call now.
     *
     * @return the call's ticket, a probe's when this call is the one that tests a provider found down
     * @throws HeldBack while the circuit is open and no probe is due, or another call is the probe
     */
    synchronized Ticket admit() throws HeldBack {
        Instant now = clock.instant();
        switch (state) {
            case CLOSED:
                return new Ticket(false, openings, ++letOut);
            case OPEN:
                if (!now.isBefore(nextProbeAt)) {
                    state = State.PROBING;
                    return new Ticket(true, openings, ++letOut);
                }
                throw new HeldBack(Duration.between(now, nextProbeAt), describe(now));
            default:
                // The probe's answer decides; the conflict comes back when the next probe could be due.
                throw new HeldBack(settings.getFirstProbeAfter(), describe(now));
        }
    }

    /**
     * The provider answered (whatever it said): it is up. Closes an open circuit, unless the call was let out
     * before the circuit opened: a late answer to a request sent before the outage says nothing about now.
     */
    synchronized void answered(Ticket ticket) {
        lastAnswered = Math.max(lastAnswered, ticket.order());
        if (state == State.CLOSED) {
            streak.clear();
            return;
        }
        if (ticket.epoch() != openings) {
            return;
        }
        streak.clear();
        Duration down = Duration.between(openedAt, clock.instant());
        LOG.info("provider '{}' answers again after {} ms down ({} failed probes); its circuit is closed",
                provider, down.toMillis(), failedProbes);
        state = State.CLOSED;
        interval = settings.getFirstProbeAfter();
        failedProbes = 0;
    }

    /**
     * The call for {@code conflict} met a failure an outage produces.
     *
     * @param what the failure in a few words, for the health check and the log
     */
    synchronized Verdict failed(Ticket ticket, UUID conflict, String what) {
        Instant now = clock.instant();
        lastFailureText = what;
        if (ticket.probe()) {
            return new Verdict(SynthesisDeferred.Cause.PROVIDER_OUTAGE, probeFailed(ticket, what));
        }
        if (state != State.CLOSED) {
            // A call sent before the circuit opened: more of the same outage.
            return new Verdict(SynthesisDeferred.Cause.PROVIDER_OUTAGE, untilProbe(now));
        }
        if (ticket.epoch() != openings) {
            // Sent before the last outage was found and failed only after it ended: that outage's, not the
            // conflict's, and no sign of a new one.
            return new Verdict(SynthesisDeferred.Cause.OUTAGE_SUSPECTED, settings.getFirstProbeAfter());
        }
        Long previous = lastFailure.put(conflict, letOut);
        if (previous != null && lastAnswered > previous) {
            // The provider answered a call let out since this conflict last failed: the failure is its own.
            return Verdict.COUNTS;
        }
        streak.add(conflict);
        if (previous != null || streak.size() >= settings.getOpenAfter()) {
            open(now, what, previous != null);
            return new Verdict(SynthesisDeferred.Cause.PROVIDER_OUTAGE, interval);
        }
        return new Verdict(SynthesisDeferred.Cause.OUTAGE_SUSPECTED, settings.getFirstProbeAfter());
    }

    /**
     * The probe met a failure an outage produces: the provider is still down, and the next probe waits twice as
     * long, up to the cap.
     *
     * @return how long calls are held back now
     */
    synchronized Duration probeFailed(Ticket ticket, String what) {
        lastFailureText = what;
        if (state != State.PROBING || ticket.epoch() != openings) {
            return untilProbe(clock.instant());
        }
        failedProbes++;
        Duration doubled = interval.multipliedBy(2);
        interval = doubled.compareTo(settings.getMaxProbeInterval()) > 0 ? settings.getMaxProbeInterval() : doubled;
        nextProbeAt = clock.instant().plus(interval);
        state = State.OPEN;
        LOG.info("probe of provider '{}' failed ({}); next probe in {} ms", provider, what, interval.toMillis());
        return interval;
    }

    /** The probe ended without telling anything (the worker gave up on it): the next call probes again. */
    synchronized void abandoned(Ticket ticket) {
        if (ticket.probe() && ticket.epoch() == openings && state == State.PROBING) {
            state = State.OPEN;
            nextProbeAt = clock.instant();
        }
    }

    synchronized State state() {
        return state;
    }

    /** How often the circuit has opened since start. */
    synchronized long openings() {
        return openings;
    }

    synchronized CircuitStatus status() {
        Instant now = clock.instant();
        if (state == State.CLOSED) {
            return new CircuitStatus(provider, false, "provider '" + provider + "' is called as usual");
        }
        return new CircuitStatus(provider, true, describe(now));
    }

    private void open(Instant now, String what, boolean unansweredSince) {
        state = State.OPEN;
        openedAt = now;
        openedBecause = unansweredSince ? "a conflict failed twice with no call answered in between"
                : settings.getOpenAfter() + " conflicts in a row failed";
        interval = settings.getFirstProbeAfter();
        nextProbeAt = now.plus(interval);
        failedProbes = 0;
        openings++;
        streak.clear();
        LOG.warn("provider '{}' is down: {} (last: {}); its circuit is open: conflicts wait uncounted, the provider "
                + "is probed from {} ms on", provider, openedBecause, what, interval.toMillis());
    }

    private Duration untilProbe(Instant now) {
        if (state == State.PROBING) {
            return settings.getFirstProbeAfter();
        }
        Duration left = Duration.between(now, nextProbeAt);
        return left.isNegative() ? Duration.ZERO : left;
    }

    private String describe(Instant now) {
        String next = state == State.PROBING ? "a probe is out now"
                : "next probe in " + Math.max(0, Duration.between(now, nextProbeAt).toMillis()) + " ms";
        return "provider '" + provider + "' is down: circuit open since " + openedAt + " after "
                + openedBecause + " (last: " + lastFailureText + "); " + failedProbes
                + " probes failed since; " + next + "; conflicts wait with no attempt counted";
    }

    /** The circuit holds calls back for at least {@link #retryAfter()}. */
    static final class HeldBack extends Exception {

        private final Duration retryAfter;

        HeldBack(Duration retryAfter, String message) {
            super(message, null, false, false);
            this.retryAfter = retryAfter;
        }

        Duration retryAfter() {
            return retryAfter;
        }
    }
}
