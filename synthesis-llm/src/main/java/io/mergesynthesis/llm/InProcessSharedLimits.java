package io.mergesynthesis.llm;

import io.mergesynthesis.llm.RateLimitHeaders.Kind;
import io.mergesynthesis.llm.RateLimitHeaders.Stated;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;

/**
 * The shared buckets kept in this process: what the service keeps in its database, for the synthesizers of one
 * process and for tests on a hand-moved clock. The database's functions ({@code shared_token_reserve},
 * {@code shared_token_settle} and {@code shared_token_counted}) do the same, step for step; a change here is a change
 * there.
 */
public final class InProcessSharedLimits implements SharedLimits {

    /** Until a limit is known, how long the first call may go alone before another may try instead. */
    public static final Duration PROBE_HOLD = Duration.ofSeconds(30);
    /** How long a call waiting for the first answer waits before asking again. */
    public static final Duration PROBE_WAIT = Duration.ofMillis(50);
    /** How long a call waiting for what the calls in flight will give back waits before it asks again. */
    public static final Duration IN_FLIGHT_WAIT = Duration.ofMillis(50);
    /** Both providers state their token limits per minute, refilled continuously. */
    public static final Duration PERIOD = Duration.ofMinutes(1);
    /** A stated remaining count that is a whole thousand may be rounded to it: it is read within half of that. */
    public static final long ROUNDING = 1000;

    private final Clock clock;
    private final Map<Key, Map<Kind, Bucket>> buckets = new HashMap<>(); // guarded by this

    /** One limit of one model: unknown while probed, unstated, or a bucket with its level. */
    private static final class Bucket {
        Long limit; // null: not known (probeUntil set) or not stated (probeUntil null)
        double perSecond;
        double level;
        Instant levelAt;
        long version;
        Instant probeUntil;
        double reservedTotal; // everything ever reserved from it
        double settledTotal; // of that, what the calls that ended held
        double countedPerCall; // what the provider counted of the last call it took at its start; 0 before one

        double levelAt(Instant now) {
            double seconds = Math.max(0, Duration.between(levelAt, now).toNanos() / 1e9);
            return Math.min(limit, level + perSecond * seconds);
        }
    }

    public InProcessSharedLimits(Clock clock) {
        this.clock = clock;
    }

    @Override
    public synchronized Reservation reserve(Key key, Map<Kind, Double> held) {
        Instant now = clock.instant();
        Map<Kind, Bucket> model = buckets.computeIfAbsent(key, k -> new EnumMap<>(Kind.class));
        Duration wait = Duration.ZERO;
        for (Map.Entry<Kind, Double> ask : held.entrySet()) {
            Bucket bucket = model.get(ask.getKey());
            Duration need;
            if (bucket == null || bucket.limit == null) {
                need = bucket != null && bucket.probeUntil != null && bucket.probeUntil.isAfter(now)
                        ? min(PROBE_WAIT, Duration.between(now, bucket.probeUntil)) : Duration.ZERO;
            } else {
                double missing = Math.min(ask.getValue(), bucket.limit) - bucket.levelAt(now);
                need = missing <= 0 ? Duration.ZERO
                        : Duration.ofNanos((long) Math.ceil(missing / bucket.perSecond * 1e9));
                if (missing > 0 && bucket.reservedTotal - bucket.settledTotal >= missing) {
                    // Calls in flight hold enough to let this one go, and give back what they held beyond their
                    // cost as they end, which may be long before the refill alone brings it: ask again shortly.
                    need = min(need, IN_FLIGHT_WAIT);
                }
            }
            if (need.compareTo(wait) > 0) {
                wait = need;
            }
        }
        if (!wait.isZero()) {
            return Reservation.waitFor(wait);
        }
        Map<Kind, Held> holds = new EnumMap<>(Kind.class);
        for (Map.Entry<Kind, Double> ask : held.entrySet()) {
            Bucket bucket = model.computeIfAbsent(ask.getKey(), k -> {
                Bucket fresh = new Bucket();
                fresh.probeUntil = Instant.MIN;
                return fresh;
            });
            if (bucket.limit == null) {
                if (bucket.probeUntil != null) {
                    bucket.probeUntil = now.plus(PROBE_HOLD); // this call is the first: the others wait for it
                }
                holds.put(ask.getKey(), Held.NOTHING);
                continue;
            }
            bucket.level = bucket.levelAt(now) - ask.getValue();
            bucket.levelAt = now;
            double inFlightBefore = bucket.reservedTotal - bucket.settledTotal;
            bucket.reservedTotal += ask.getValue();
            holds.put(ask.getKey(), new Held(bucket.level, bucket.version, inFlightBefore, bucket.reservedTotal));
        }
        return new Reservation(true, Duration.ZERO, holds, true);
    }

    @Override
    public synchronized void settle(Key key, Map<Kind, Ending> endings) {
        Instant now = clock.instant();
        Map<Kind, Bucket> model = buckets.computeIfAbsent(key, k -> new EnumMap<>(Kind.class));
        endings.forEach((kind, ending) -> {
            Bucket bucket = model.get(kind);
            if (bucket != null && ending.answered() && ending.held() - ending.unseen() > 0) {
                bucket.countedPerCall = ending.held() - ending.unseen();
            }
            Stated stated = ending.stated().filter(s -> s.limit().isPresent() && s.limit().getAsLong() > 0)
                    .orElse(null);
            if (bucket == null || bucket.limit == null || (stated != null
                    && stated.limit().getAsLong() != bucket.limit)) {
                if (bucket == null) {
                    bucket = new Bucket();
                    model.put(kind, bucket);
                }
                if (stated != null) {
                    long limit = stated.limit().getAsLong();
                    bucket.limit = limit;
                    bucket.perSecond = limit / (PERIOD.toNanos() / 1e9);
                    bucket.level = Math.min(limit, lowest(stated) - ending.unseen() + ending.returned());
                    bucket.levelAt = now;
                    bucket.version++;
                    bucket.probeUntil = null;
                } else if (ending.answered()) {
                    bucket.probeUntil = null; // an answer that states nothing: the limit is not stated
                } else if (bucket.probeUntil != null) {
                    bucket.probeUntil = Instant.MIN; // the first call got no answer: the next one may try
                }
                return;
            }
            bucket.level = bucket.levelAt(now);
            bucket.levelAt = now;
            Held reserved = ending.reserved();
            if (stated != null && reserved.drawn() && reserved.version() == bucket.version) {
                double half = half(stated);
                // Calls reserved after this one may have been counted before it, and calls reserved before it
                // after it: the statement is read as wrong by at most those.
                double highest = stated.remaining() + half - ending.unseen()
                        + (bucket.reservedTotal - reserved.reservedThrough());
                double lowest = stated.remaining() - half - ending.unseen() - reserved.inFlightBefore()
                        - ending.held();
                if (reserved.levelAfter() > highest) {
                    // Someone spent what this store did not see: the provider's count is the truth.
                    bucket.level -= reserved.levelAfter() - highest;
                    bucket.version++;
                } else if (reserved.levelAfter() < lowest) {
                    // More is there than kept here, beyond what calls on their way could explain: a replica that
                    // died holding tokens, say.
                    bucket.level = Math.min(bucket.limit, bucket.level + lowest - reserved.levelAfter());
                    bucket.version++;
                }
            }
            if (reserved.drawn()) {
                bucket.level = Math.min(bucket.limit, bucket.level + ending.returned());
                bucket.settledTotal += ending.held();
            }
        });
    }

    @Override
    public synchronized Map<Kind, Double> lastCounted(Key key) {
        Map<Kind, Double> counted = new EnumMap<>(Kind.class);
        buckets.getOrDefault(key, Map.of()).forEach((kind, bucket) -> {
            if (bucket.countedPerCall > 0) {
                counted.put(kind, bucket.countedPerCall);
            }
        });
        return counted;
    }

    @Override
    public boolean available() {
        return true;
    }

    /** What a limit's bucket may hold now; NaN when none is kept; for tests. */
    synchronized double level(Key key, Kind kind) {
        Bucket bucket = buckets.getOrDefault(key, Map.of()).get(kind);
        return bucket == null || bucket.limit == null ? Double.NaN : bucket.levelAt(clock.instant());
    }

    /** Half the rounding when the stated count may be rounded: a whole thousand. */
    static double half(Stated stated) {
        return stated.remaining() % ROUNDING == 0 ? ROUNDING / 2.0 : 0;
    }

    private static double lowest(Stated stated) {
        return Math.max(0, stated.remaining() - half(stated));
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
