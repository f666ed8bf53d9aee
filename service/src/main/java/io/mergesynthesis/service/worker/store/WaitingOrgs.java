package io.mergesynthesis.service.worker.store;

import io.mergesynthesis.service.db.OneTripBatch;
import io.mergesynthesis.service.db.SqlFiles;
import io.mergesynthesis.synthesis.Ticker;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * A pool's picture of the fair order (ADR 0069): every org with a conflict due, its weight, route and last tag,
 * read by walking the waiting orgs now and then ({@link #FRESH_FOR}) rather than at every claim, which would
 * cost a few index pages per waiting org each time. Between walks the picture follows this pool's own claims;
 * what other replicas claim it learns at the next walk, and each claim reads its candidates' last tags fresh, so
 * a stale picture only chooses which orgs a claim looks at, never the tags it writes.
 *
 * <p>Shared by the claim loop and the completers, whose stores claim the next conflicts.
 */
public final class WaitingOrgs {

    /** How long a walk stands: a new org's first conflict waits at most this long to be seen by the claims. */
    public static final Duration FRESH_FOR = Duration.ofMillis(250);

    private static final String WALK = SqlFiles.of(ConflictLeases.class, "waiting_orgs");

    /** One waiting org as the walk found it, its last tag moved on by this pool's claims since. */
    private record Place(UUID orgId, Instant oldest, int weight, String route, double lastTag) {

        double startsAt(double level) {
            return Double.isNaN(lastTag) ? level : Math.max(lastTag + 1.0 / weight, level);
        }

        Place served(double tag) {
            return new Place(orgId, oldest, weight, route, Double.isNaN(lastTag) ? tag : Math.max(lastTag, tag));
        }
    }

    private final Ticker ticker;
    private Map<UUID, Place> places = Map.of(); // guarded by this
    private double level; // guarded by this
    private long walkedAt; // guarded by this; the ticker's reading at the last walk
    private boolean walked; // guarded by this
    private boolean stale; // guarded by this
    private boolean walking; // guarded by this; a caller took the walk and its result is not read yet
    private long walkTakenAt; // guarded by this
    private long nextDueAt; // guarded by this; the ticker's reading when the next pending row comes due
    private boolean someLater; // guarded by this; whether the walk found an org whose oldest is not due yet

    public WaitingOrgs(Ticker ticker) {
        this.ticker = ticker;
    }

    /** Whether the next claim should walk first: never walked, walked too long ago, or found wanting. */
    public synchronized boolean due() {
        return !walked || stale || ticker.nanos() - walkedAt >= FRESH_FOR.toNanos();
    }

    /**
     * Whether this caller should walk now: true for one caller when the picture is {@link #due()}, the others
     * going on with the picture as it is; until that walk is read, or for {@link #FRESH_FOR} if it never is.
     */
    public synchronized boolean takeWalk() {
        long now = ticker.nanos();
        if (walking && now - walkTakenAt < FRESH_FOR.toNanos()) {
            return false;
        }
        if (!due()) {
            return false;
        }
        walking = true;
        walkTakenAt = now;
        stale = false; // what makes it stale from here on calls for the walk after this one
        return true;
    }

    /** Adds the walk to a cross-tenant {@code batch}; the picture takes what it finds once the batch has run. */
    public OneTripBatch.Result<List<Object>> walkInto(OneTripBatch batch) {
        long startedAt = ticker.nanos();
        return batch.query(WALK, Map.of(), rs -> {
            List<Place> found = new ArrayList<>();
            long soonestLater = Long.MAX_VALUE;
            while (rs.next()) {
                long laterIn = rs.getLong("later_in_micros");
                if (!rs.wasNull()) {
                    soonestLater = Math.min(soonestLater, laterIn);
                }
                if (!rs.getBoolean("due")) {
                    continue;
                }
                double last = rs.getDouble("last_tag");
                double lastTag = rs.wasNull() ? Double.NaN : last;
                found.add(new Place(rs.getObject("org_id", UUID.class), rs.getTimestamp("oldest").toInstant(),
                        rs.getInt("weight"), rs.getString("route"), lastTag));
            }
            walked(found, startedAt, soonestLater);
            return List.of();
        });
    }

    private synchronized void walked(List<Place> found, long startedAt, long soonestLaterMicros) {
        places = found.stream().collect(Collectors.toMap(Place::orgId, place -> place));
        level = found.stream().mapToDouble(Place::lastTag).filter(tag -> !Double.isNaN(tag)).max().orElse(0);
        walkedAt = startedAt;
        walked = true;
        walking = false;
        someLater = soonestLaterMicros != Long.MAX_VALUE;
        nextDueAt = someLater ? startedAt + Duration.of(soonestLaterMicros, ChronoUnit.MICROS).toNanos() : 0;
    }

    /**
     * How long until the next pending row not due at the last walk comes due (a retry's backoff ends), as that
     * walk saw it; empty when it saw none. Zero once that moment has passed. Rows put back to wait since (by this
     * pool's own failed attempts, or by other replicas) are not in it: a pool whose claim came back short walks
     * before it asks, so that they are.
     */
    public synchronized Optional<Duration> nextPendingDueIn() {
        if (!someLater) {
            return Optional.empty();
        }
        return Optional.of(Duration.ofNanos(Math.max(0, nextDueAt - ticker.nanos())));
    }

    /**
     * The orgs a claim of {@code limit} should look at, ids between commas as {@code claim.sql} takes them: the
     * {@code limit} and a few more that start first ({@link ConflictLeases#reach}), oldest first on a tie, leaving
     * out the held routes. Empty before the first walk, which makes the claim walk itself.
     */
    public synchronized String candidates(int limit, String heldRoutes) {
        if (!walked) {
            return ConflictLeases.EVERY_WAITING_ORG;
        }
        return places.values().stream()
                .filter(place -> heldRoutes.isEmpty() || !heldRoutes.contains("," + place.route() + ","))
                .sorted(Comparator.comparingDouble((Place place) -> place.startsAt(level))
                        .thenComparing(Place::oldest))
                .limit(ConflictLeases.reach(limit))
                .map(place -> place.orgId().toString())
                .collect(Collectors.joining(","));
    }

    /** New conflicts were reported: the next claim walks first (a pool without LISTEN learns at the next walk). */
    public synchronized void newConflictsReported() {
        stale = true;
    }

    /** The level the picture holds: the highest last tag among the waiting orgs. */
    public synchronized double level() {
        return level;
    }

    /**
     * What a claim got, as {@code claimed} (lease and its tag): the orgs served move on. A claim that came back
     * with fewer than {@code asked} marks the picture stale, since it may have offered orgs with nothing left.
     */
    public synchronized void claimed(Map<Lease, Double> claimed, int asked) {
        if (claimed.size() < asked) {
            stale = true;
        }
        Map<UUID, Place> next = new HashMap<>(places);
        claimed.forEach((lease, tag) -> {
            if (lease.recovered() || tag == null) {
                return;
            }
            next.computeIfPresent(lease.orgId(), (org, place) -> place.served(tag));
            level = Math.max(level, tag);
        });
        places = next;
    }
}
