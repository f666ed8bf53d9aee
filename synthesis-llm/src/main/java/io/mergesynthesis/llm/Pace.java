package io.mergesynthesis.llm;

import io.mergesynthesis.llm.ProviderPace.Charge;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * How the starts of this replica's calls to one model are kept under one limit the provider states: each call is
 * charged when it starts and settled when its answer is read. A limit counted in fixed periods is a
 * {@link ProviderPace}, a bucket that refills continuously a {@link BucketPace}.
 */
interface Pace {

    /** How long until a call charged {@code charge} may start, with {@code ahead} calls waiting before it. */
    Duration untilStart(Charge charge, int ahead);

    /** How long until the next call like the last one may start; zero for now. */
    Duration untilNextStart();

    /**
     * Counts a call charged {@code charge} as started now, whatever the pace says.
     *
     * @return the call's number, for {@link #answered}
     */
    long start(Charge charge);

    /**
     * What the answer to call {@code call}, sent at {@code sentAt}, said about the limit, and what the provider
     * counted for the call in the end ({@code spent}).
     *
     * @param counted whether the provider took the call (any 2xx): a refused call was not charged at all
     */
    void answered(long call, Instant sentAt, Optional<RateLimitHeaders.Stated> stated, double spent, boolean counted);

    /** The call got no answer (no connection, no answer in time, an interrupted worker). */
    void unanswered(long call);

    /** Whether the limit is being paced to. */
    boolean pacing();

    /** What this replica allows itself per second now, in the limit's units; zero when not pacing. */
    double perSecond();
}
