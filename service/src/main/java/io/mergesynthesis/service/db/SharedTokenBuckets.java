package io.mergesynthesis.service.db;

import io.mergesynthesis.llm.RateLimitHeaders.Kind;
import io.mergesynthesis.llm.RateLimitHeaders.Stated;
import io.mergesynthesis.llm.SharedLimits;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The token limits of the providers' models kept in {@code shared_token_buckets} for every replica of the
 * deployment (schema 30): a call's start reserves in one round trip, its end settles in one more. What the calls
 * in flight hold is kept per replica, and ends with the replica's calls (schema 34). Each statement
 * is one call of a function that runs as its owner, on a plain connection of the pool in auto-commit mode.
 *
 * <p>A store that fails must not stop the calls: the failing call goes unshared, the store steps aside for
 * {@link #STEP_ASIDE}, and each replica paces itself meanwhile from its own answers, as without a store.
 */
public final class SharedTokenBuckets implements SharedLimits {

    private static final Logger LOG = LoggerFactory.getLogger(SharedTokenBuckets.class);
    private static final String RESERVE = SqlFiles.of(SharedTokenBuckets.class, "reserve");
    private static final String SETTLE = SqlFiles.of(SharedTokenBuckets.class, "settle");
    private static final String COUNTED = SqlFiles.of(SharedTokenBuckets.class, "counted");

    /** How long the replica paces itself after the store failed, before it asks the store again. */
    static final Duration STEP_ASIDE = Duration.ofSeconds(10);

    private final Jdbi jdbi;
    private final double holdSeconds;
    private final Clock clock; // null: the database's clock
    private final Clock local;
    // This replica's row of holds: a process that starts again is a new holder, and its old holds age out.
    private final UUID holder = UUID.randomUUID();
    private volatile Instant asideUntil = Instant.MIN;

    /**
     * Buckets on the database's clock, the one clock every replica shares.
     *
     * @param invokeTimeout how long the worker gives an attempt: every call this replica reserved for has ended
     *                      within twice that, so a replica that stopped reserving holds nothing after it
     */
    public SharedTokenBuckets(Jdbi jdbi, Duration invokeTimeout) {
        this(jdbi, invokeTimeout, null);
    }

    /** Buckets on {@code clock} instead of the database's: for tests that move time by hand. */
    public SharedTokenBuckets(Jdbi jdbi, Duration invokeTimeout, Clock clock) {
        if (invokeTimeout.isNegative() || invokeTimeout.isZero()) {
            throw new IllegalArgumentException("the invoke timeout must be positive, was " + invokeTimeout);
        }
        this.jdbi = jdbi;
        this.holdSeconds = 2 * invokeTimeout.toNanos() / 1e9;
        this.clock = clock;
        this.local = clock == null ? Clock.systemUTC() : clock;
    }

    @Override
    public Reservation reserve(Key key, Map<Kind, Double> held) {
        List<Kind> kinds = new ArrayList<>(held.keySet());
        String[] labels = kinds.stream().map(Kind::label).toArray(String[]::new);
        Double[] amounts = kinds.stream().map(held::get).toArray(Double[]::new);
        try {
            List<Row> rows = jdbi.withHandle(handle -> handle.createQuery(RESERVE)
                    .bind("provider", key.provider())
                    .bind("model", key.model())
                    .bind("kinds", labels)
                    .bind("heldTokens", amounts)
                    .bind("holder", holder)
                    .bind("holdSeconds", holdSeconds)
                    .bind("now", now())
                    .map((rs, ctx) -> new Row(rs.getString("kind"), rs.getBoolean("granted"),
                            rs.getDouble("wait_seconds"), (Double) rs.getObject("level_after"),
                            rs.getLong("version"), rs.getDouble("in_flight_before"),
                            rs.getDouble("reserved_through")))
                    .list());
            if (rows.size() == 1 && !rows.get(0).granted()) {
                return Reservation.waitFor(Duration.ofNanos((long) Math.ceil(rows.get(0).waitSeconds() * 1e9)));
            }
            Map<Kind, Held> holds = new EnumMap<>(Kind.class);
            for (Row row : rows) {
                Kind kind = kindOf(row.kind());
                holds.put(kind, row.levelAfter() == null ? Held.NOTHING
                        : new Held(row.levelAfter(), row.version(), row.inFlightBefore(), row.reservedThrough()));
            }
            return new Reservation(true, Duration.ZERO, holds, true);
        } catch (RuntimeException e) {
            stepAside("reserve", e);
            return Reservation.UNSHARED;
        }
    }

    @Override
    public void settle(Key key, Map<Kind, Ending> endings) {
        if (endings.isEmpty()) {
            return;
        }
        int n = endings.size();
        String[] labels = new String[n];
        Double[] held = new Double[n];
        Double[] returned = new Double[n];
        Double[] unseen = new Double[n];
        Long[] limits = new Long[n];
        Long[] remaining = new Long[n];
        Double[] levelsAfter = new Double[n];
        Long[] versions = new Long[n];
        Double[] inFlightBefore = new Double[n];
        Double[] reservedThrough = new Double[n];
        boolean answered = false;
        int i = 0;
        for (Map.Entry<Kind, Ending> entry : endings.entrySet()) {
            Ending ending = entry.getValue();
            labels[i] = entry.getKey().label();
            held[i] = ending.held();
            returned[i] = ending.returned();
            unseen[i] = ending.unseen();
            Stated stated = ending.stated().orElse(null);
            limits[i] = stated == null || stated.limit().isEmpty() ? null : stated.limit().getAsLong();
            remaining[i] = stated == null ? null : stated.remaining();
            levelsAfter[i] = ending.reserved().drawn() ? ending.reserved().levelAfter() : null;
            versions[i] = ending.reserved().version();
            inFlightBefore[i] = ending.reserved().inFlightBefore();
            reservedThrough[i] = ending.reserved().reservedThrough();
            answered |= ending.answered();
            i++;
        }
        boolean anyAnswered = answered;
        try {
            jdbi.useHandle(handle -> handle.createQuery(SETTLE)
                    .bind("provider", key.provider())
                    .bind("model", key.model())
                    .bind("kinds", labels)
                    .bind("heldTokens", held)
                    .bind("returnedTokens", returned)
                    .bind("unseenTokens", unseen)
                    .bind("statedLimits", limits)
                    .bind("statedRemaining", remaining)
                    .bind("levelsAfter", levelsAfter)
                    .bind("versions", versions)
                    .bind("inFlightBefore", inFlightBefore)
                    .bind("reservedThrough", reservedThrough)
                    .bind("answered", anyAnswered)
                    .bind("holder", holder)
                    .bind("now", now())
                    .mapToMap()
                    .list());
        } catch (RuntimeException e) {
            stepAside("settle", e);
        }
    }

    @Override
    public Map<Kind, Double> lastCounted(Key key) {
        try {
            Map<Kind, Double> counted = new EnumMap<>(Kind.class);
            jdbi.useHandle(handle -> handle.createQuery(COUNTED)
                    .bind("provider", key.provider())
                    .bind("model", key.model())
                    .map((rs, ctx) -> counted.put(kindOf(rs.getString("kind")), rs.getDouble("counted")))
                    .list());
            return counted;
        } catch (RuntimeException e) {
            stepAside("read what a call was counted", e);
            return Map.of();
        }
    }

    @Override
    public boolean available() {
        return !local.instant().isBefore(asideUntil);
    }

    private Timestamp now() {
        return clock == null ? null : Timestamp.from(clock.instant());
    }

    private void stepAside(String what, RuntimeException e) {
        boolean first = available();
        asideUntil = local.instant().plus(STEP_ASIDE);
        if (first) {
            LOG.warn("the shared token buckets could not {} ({}): each replica paces itself from its own answers "
                    + "for the next {} s", what, e.toString(), STEP_ASIDE.toSeconds());
        }
    }

    private static Kind kindOf(String label) {
        for (Kind kind : Kind.values()) {
            if (kind.label().equals(label)) {
                return kind;
            }
        }
        throw new IllegalStateException("unknown limit kind " + label);
    }

    private record Row(String kind, boolean granted, double waitSeconds, Double levelAfter, long version,
                       double inFlightBefore, double reservedThrough) {
    }
}
