package io.mergesynthesis.llm;

import io.mergesynthesis.llm.RateLimitHeaders.Kind;
import io.mergesynthesis.llm.RateLimitHeaders.Stated;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The token limits a provider states, kept for every replica of a deployment at once: each limit of a model is one
 * bucket whose level all the replicas read and draw on, so that a call of one replica is seen by the others before
 * their next start, not after their next answer (ADR 0073).
 *
 * <p>A call reserves what it holds under each token limit in one step ({@link #reserve}), all of them or none; a
 * bucket that would be overdrawn answers how long until it holds enough. When the call ends ({@link #settle}) what
 * it held beyond what it cost goes back, and what its answer stated corrects the level: the provider's count is
 * the truth, as others outside the deployment may spend the same key. Until the first answer has stated a limit,
 * the deployment's first call goes alone.
 *
 * <p>{@link #NONE} keeps nothing: each replica paces itself from its own answers ({@link BucketPace}), as a
 * synthesizer built without a shared store always has.
 */
public interface SharedLimits {

    /** The kinds kept here; the request limit stays with each replica's own pace. */
    Set<Kind> KINDS = Set.of(Kind.INPUT_TOKENS, Kind.OUTPUT_TOKENS, Kind.TOKENS);

    /** A bucket's row names the provider (as configured), the model and the kind of limit. */
    record Key(String provider, String model) {
    }

    /**
     * What a call holds under one limit, as reserved.
     *
     * @param levelAfter what the bucket held right after the reservation; NaN when nothing was drawn from it (its
     *                   limit is not known yet, or not stated)
     * @param version    the bucket's correction count then: an answer corrects the level only when no other
     *                   answer has corrected it since the call's reservation
     * @param inFlightBefore  what the calls reserved before it and not yet settled held then: the provider may
     *                   count them after this call, so its statement may show them as still there
     * @param reservedThrough everything ever reserved from the bucket, this call included: what is reserved after
     *                   it may be counted before it, so its statement may show that as gone already
     */
    record Held(double levelAfter, long version, double inFlightBefore, double reservedThrough) {

        public static final Held NOTHING = new Held(Double.NaN, 0, 0, 0);

        public boolean drawn() {
            return !Double.isNaN(levelAfter);
        }
    }

    /**
     * The answer to a reservation: granted with what each limit holds, or refused with how long until it may be.
     *
     * @param until   how long until the call may be reserved, when not granted
     * @param shared whether the store kept the call at all: false when there is none, or it failed, and the
     *               replica's own pace must keep the limits
     */
    record Reservation(boolean granted, Duration until, Map<Kind, Held> held, boolean shared) {

        public static final Reservation UNSHARED = new Reservation(true, Duration.ZERO, Map.of(), false);

        public static Reservation waitFor(Duration wait) {
            return new Reservation(false, wait, Map.of(), true);
        }
    }

    /**
     * How one call ended under one limit.
     *
     * @param held     what the call reserved
     * @param returned what goes back to the bucket now: what it held beyond what it cost (negative when it cost
     *                 more than it held); all of it when the provider refused the call; nothing when no answer
     *                 came, as the provider may have counted it
     * @param unseen   the part of {@code held} that the statement does not show as taken: the provider takes a
     *                 call's input as it counts it, its {@code max_tokens} as held, and nothing of a refused call
     * @param stated   what the answer said about the limit
     * @param answered whether an answer came at all
     * @param reserved what the reservation found
     */
    record Ending(double held, double returned, double unseen, Optional<Stated> stated, boolean answered,
                  Held reserved) {
    }

    /**
     * Reserves {@code held} under each of the model's limits, all or none.
     *
     * @return granted, or how long until the buckets may hold enough; never throws: a store that fails answers
     *     {@link Reservation#UNSHARED}
     */
    Reservation reserve(Key key, Map<Kind, Double> held);

    /** The call reserved under {@code key} ended so; never throws. */
    void settle(Key key, Map<Kind, Ending> endings);

    /**
     * What the provider counted at its start of the last call of the model that it took, from any replica, under
     * each limit that has seen one: its input tokens as counted, its {@code max_tokens} as held. A replica that has
     * had no answer yet can only guess its calls' input from their size; it charges them no less than this, so
     * that the store does not let a call go on a guess that falls short of what the provider will count. Empty
     * when no call was taken yet; never throws.
     */
    default Map<Kind, Double> lastCounted(Key key) {
        return Map.of();
    }

    /** Whether the store keeps the limits now; when not, each replica's own pace does. */
    boolean available();

    /** Nothing shared: each replica paces itself, as before. */
    SharedLimits NONE = new SharedLimits() {
        @Override
        public Reservation reserve(Key key, Map<Kind, Double> held) {
            return Reservation.UNSHARED;
        }

        @Override
        public void settle(Key key, Map<Kind, Ending> endings) {
        }

        @Override
        public boolean available() {
            return false;
        }

        @Override
        public String toString() {
            return "SharedLimits.NONE";
        }
    };
}
