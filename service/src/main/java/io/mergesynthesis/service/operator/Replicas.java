package io.mergesynthesis.service.operator;

import io.mergesynthesis.service.core.ReplicaBeat;
import io.mergesynthesis.service.db.ReplicaHeartbeats;
import io.mergesynthesis.service.db.ScopedTransactions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** The replicas as their heartbeats describe them, each judged live, gone or stopped. */
public final class Replicas {

    /**
     * A replica is gone once silent for this many of its own intervals: one late beat (a pause, a slow database)
     * is no death, three missed in a row are.
     */
    public static final int GONE_AFTER_INTERVALS = 3;

    private final ScopedTransactions transactions;

    public Replicas(ScopedTransactions transactions) {
        this.transactions = transactions;
    }

    public enum State {
        LIVE, GONE, STOPPED
    }

    public record Replica(ReplicaBeat beat, State state, Duration silentFor) {
    }

    public List<Replica> list(Instant now) {
        return transactions.crossTenant(ReplicaHeartbeats::all).stream().map(b -> judge(b, now)).toList();
    }

    static Replica judge(ReplicaBeat beat, Instant now) {
        Duration silent = Duration.between(beat.beatAt(), now);
        State state = beat.stoppedAt() != null ? State.STOPPED
                : silent.compareTo(beat.interval().multipliedBy(GONE_AFTER_INTERVALS)) > 0 ? State.GONE : State.LIVE;
        return new Replica(beat, state, silent.isNegative() ? Duration.ZERO : silent);
    }
}
