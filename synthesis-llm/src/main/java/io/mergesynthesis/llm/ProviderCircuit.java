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
 * <p>Only failures an outage produces are looked at here: no connection, no answer in time, a 5xx. When such
 * failures come from {@code openAfter} different conflicts in a row, with no answer of any kind in between, the
 * provider is down: the circuit opens, calls are held back (the conflict is handed back with no attempt counted)
 * and one call at a time probes the provider, the first a second later, then at a doubling interval up to a cap.
 * The probe's answer, whatever it says, closes the circuit at once; so does any answer to a call let out since
 * the circuit opened, but not a late answer to a call sent before it.
 *
 * <p>Before the circuit opens the same failure is ambiguous: it may be the first of an outage, or this conflict's
 * own (a request the provider chokes on). Each conflict gets one uncounted retry for it; a second such failure of
 * the same conflict while the provider has not been found down counts against the conflict as before, so a
 * conflict that always breaks the provider still reaches its marker, one call later than it used to.
 */
final class ProviderCircuit {

    private static final Logger LOG = LoggerFactory.getLogger(ProviderCircuit.class);

    /** Conflicts given their uncounted retry are remembered up to this many; the oldest are forgotten first. */
    static final int REMEMBERED_RETRIES = 10_000;

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
     * A call let out: whether it is the probe, and which opening of the circuit it was let out under (calls let
     * out before an opening carry an older one).
     */
    record Ticket(boolean probe, long epoch) {
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
    private final Map<UUID, Boolean> retried = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<UUID, Boolean> eldest) {
            return size() > REMEMBERED_RETRIES;
        }
    };
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
                return new Ticket(false, openings);
            case OPEN:
                if (!now.isBefore(nextProbeAt)) {
                    state = State.PROBING;
                    return new Ticket(true, openings);
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
        lastFailure = what;
        if (state == State.PROBING && ticket.probe() && ticket.epoch() == openings) {
            failedProbes++;
            Duration doubled = interval.multipliedBy(2);
            interval = doubled.compareTo(settings.getMaxProbeInterval()) > 0 ? settings.getMaxProbeInterval() : doubled;
            nextProbeAt = now.plus(interval);
            state = State.OPEN;
            LOG.info("probe of provider '{}' failed ({}); next probe in {} ms", provider, what, interval.toMillis());
            return new Verdict(SynthesisDeferred.Cause.PROVIDER_OUTAGE, interval);
        }
        if (state != State.CLOSED) {
            // A call sent before the circuit opened: more of the same outage.
            return new Verdict(SynthesisDeferred.Cause.PROVIDER_OUTAGE, untilProbe(now));
        }
        streak.add(conflict);
        if (streak.size() >= settings.getOpenAfter()) {
            open(now, what);
            return new Verdict(SynthesisDeferred.Cause.PROVIDER_OUTAGE, interval);
        }
        if (retried.putIfAbsent(conflict, Boolean.TRUE) == null) {
            return new Verdict(SynthesisDeferred.Cause.OUTAGE_SUSPECTED, settings.getFirstProbeAfter());
        }
        return Verdict.COUNTS;
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
        streak.clear();
        // The conflicts that met this outage before it was recognised were not at fault: they get a fresh retry.
        retried.clear();
        LOG.warn("provider '{}' failed for {} different conflicts in a row (last: {}); its circuit is open: "
                + "conflicts wait uncounted, the provider is probed from {} ms on", provider, settings.getOpenAfter(),
                what, interval.toMillis());
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
                + settings.getOpenAfter() + " conflicts in a row failed (last: " + lastFailure + "); " + failedProbes
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
