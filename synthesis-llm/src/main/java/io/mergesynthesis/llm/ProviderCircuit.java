package io.mergesynthesis.llm;

import io.mergesynthesis.synthesis.CircuitStatus;
import io.mergesynthesis.synthesis.SynthesisDeferred;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a provider that is down from a conflict that fails, for one provider on this replica.
 *
 * <p>Only failures an outage produces are looked at here: no connection, no answer in time, a 5xx. Such a failure
 * is the provider's until the provider shows it is up: it costs the conflict no attempt, and the circuit opens at
 * once, however few conflicts are waiting. While it is open calls are held back (the conflict is handed back with
 * no attempt counted) and one call at a time probes the provider, the first a second later, then at a doubling
 * interval up to a cap. The probe's answer, whatever it says, closes the circuit at once; so does any answer to a
 * call let out since the circuit opened, but not a late answer to a call sent before it.
 *
 * <p>A conflict's failure counts against it only when the provider answered a call let out after that conflict's
 * previous failure, with no opening in between: the provider is up for others and fails this conflict alone, so
 * a conflict that always breaks the provider still reaches its marker, one call later than without a circuit, as
 * long as others are answered between its failures. Tried only while nobody else is, it cannot be told from an
 * outage, and waits like one until another conflict's call is answered.
 */
final class ProviderCircuit {

    private static final Logger LOG = LoggerFactory.getLogger(ProviderCircuit.class);

    /** Conflicts whose last failure is remembered, up to this many; the oldest are forgotten first. */
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
    record Ticket(boolean probe, long epoch, long serial) {
    }

    /**
     * Where a conflict's last outage-like failure stands: the opening it fell under and the last call let out
     * when it came. A later answer to a call let out after it, under the same opening, shows the provider up.
     */
    private record LastFailure(long epoch, long serial) {
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
    private final Map<UUID, LastFailure> lastFailures = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<UUID, LastFailure> eldest) {
            return size() > REMEMBERED_FAILURES;
        }
    };
    private long letOut; // serial of the last call let out
    private long lastAnswered = -1; // serial of the latest call let out that the provider answered
    private boolean othersWaiting; // held back since the last probe: a conflict that has not failed in this opening
    private Duration interval;
    private Instant openedAt;
    private Instant nextProbeAt;
    private int failedProbes;
    private String lastFailure = "";
    private long openings; // also the epoch: each opening starts a new one

    ProviderCircuit(String provider, CircuitSettings settings, Clock clock) {
        this.provider = provider;
        this.settings = settings;
        this.clock = clock;
        this.interval = settings.getFirstProbeAfter();
    }

    /** Asks to make a call now for no conflict in particular. */
    Ticket admit() throws HeldBack {
        return admit(null);
    }

    /**
     * Asks to make a call for {@code conflict} now.
     *
     * @return the call's ticket, a probe's when this call is the one that tests a provider found down
     * @throws HeldBack while the circuit is open and no probe is due, or another call is the probe
     */
    synchronized Ticket admit(UUID conflict) throws HeldBack {
        Instant now = clock.instant();
        switch (state) {
            case CLOSED:
                return new Ticket(false, openings, ++letOut);
            case OPEN:
                if (!now.isBefore(nextProbeAt)) {
                    if (othersWaiting && failedInThisOpening(conflict)) {
                        // A conflict that failed already in this outage may be failing for its own reasons; while
                        // others wait, one of them probes first, so that it cannot keep the circuit open for all.
                        // It steps aside once per probe, without pausing claims, so the others are claimed now.
                        othersWaiting = false;
                        throw new HeldBack(settings.getFirstProbeAfter(), describe(now)
                                + "; another conflict probes first", SynthesisDeferred.Cause.OUTAGE_SUSPECTED);
                    }
                    state = State.PROBING;
                    othersWaiting = false;
                    return new Ticket(true, openings, ++letOut);
                }
                othersWaiting |= !failedInThisOpening(conflict);
                throw new HeldBack(Duration.between(now, nextProbeAt), describe(now));
            default:
                othersWaiting |= !failedInThisOpening(conflict);
                // The probe's answer decides; the conflict comes back when the next probe could be due.
                throw new HeldBack(settings.getFirstProbeAfter(), describe(now));
        }
    }

    private boolean failedInThisOpening(UUID conflict) {
        LastFailure last = conflict == null ? null : lastFailures.get(conflict);
        return last != null && last.epoch() == openings;
    }

    /**
     * The provider answered (whatever it said): it is up. Closes an open circuit, unless the call was let out
     * before the circuit opened: a late answer to a request sent before the outage says nothing about now.
     */
    synchronized void answered(Ticket ticket) {
        lastAnswered = Math.max(lastAnswered, ticket.serial());
        if (state == State.CLOSED || ticket.epoch() != openings) {
            return;
        }
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
        lastFailure = what;
        if (state == State.PROBING && ticket.probe() && ticket.epoch() == openings) {
            failedProbes++;
            Duration doubled = interval.multipliedBy(2);
            interval = doubled.compareTo(settings.getMaxProbeInterval()) > 0 ? settings.getMaxProbeInterval() : doubled;
            nextProbeAt = now.plus(interval);
            state = State.OPEN;
            remember(conflict);
            LOG.info("probe of provider '{}' failed ({}); next probe in {} ms", provider, what, interval.toMillis());
            return new Verdict(SynthesisDeferred.Cause.PROVIDER_OUTAGE, interval);
        }
        if (state != State.CLOSED) {
            // A call sent before the circuit opened: more of the same outage.
            remember(conflict);
            return new Verdict(SynthesisDeferred.Cause.PROVIDER_OUTAGE, untilProbe(now));
        }
        if (upSinceLastFailureOf(conflict)) {
            // The provider answered others since this conflict last failed: the failure is the conflict's own.
            remember(conflict);
            return Verdict.COUNTS;
        }
        open(now, what);
        remember(conflict);
        return new Verdict(SynthesisDeferred.Cause.PROVIDER_OUTAGE, interval);
    }

    private boolean upSinceLastFailureOf(UUID conflict) {
        LastFailure last = lastFailures.get(conflict);
        return last != null && last.epoch() == openings && lastAnswered > last.serial();
    }

    private void remember(UUID conflict) {
        lastFailures.remove(conflict); // re-inserted last, so the oldest failures are the ones forgotten
        lastFailures.put(conflict, new LastFailure(openings, letOut));
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

    private void open(Instant now, String what) {
        state = State.OPEN;
        openedAt = now;
        interval = settings.getFirstProbeAfter();
        nextProbeAt = now.plus(interval);
        failedProbes = 0;
        openings++;
        LOG.warn("provider '{}' failed ({}) with no call answered since; its circuit is open: conflicts wait "
                + "uncounted, the provider is probed from {} ms on", provider, what, interval.toMillis());
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
        return "provider '" + provider + "' is down: circuit open since " + openedAt + " after a failure with no "
                + "call answered since (last: " + lastFailure + "); " + failedProbes
                + " probes failed since; " + next + "; conflicts wait with no attempt counted";
    }

    /** The circuit holds calls back for at least {@link #retryAfter()}. */
    static final class HeldBack extends Exception {

        private final Duration retryAfter;
        private final SynthesisDeferred.Cause cause;

        HeldBack(Duration retryAfter, String message) {
            this(retryAfter, message, SynthesisDeferred.Cause.PROVIDER_OUTAGE);
        }

        HeldBack(Duration retryAfter, String message, SynthesisDeferred.Cause cause) {
            super(message, null, false, false);
            this.retryAfter = retryAfter;
            this.cause = cause;
        }

        Duration retryAfter() {
            return retryAfter;
        }

        /** Why the conflict waits: the outage, or stepping aside for another conflict's probe. */
        SynthesisDeferred.Cause cause() {
            return cause;
        }
    }
}
