package io.mergesynthesis.service.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * What one replica says of itself in a heartbeat, and what the operator reads back.
 *
 * @param lastClaimAt when its workers last leased a conflict; null if never
 * @param beatAt      when it last beat
 * @param stoppedAt   when it shut down in order; null while running (or after dying without a word)
 * @param providers   per configured provider, as this replica keeps it
 */
public record ReplicaBeat(String replicaId, String host, String version, Instant startedAt, Duration interval,
                          int workers, int inFlight, Instant lastClaimAt, Instant beatAt, Instant stoppedAt,
                          List<Provider> providers) {

    /**
     * One provider as this replica keeps it.
     *
     * @param concurrencyLimit the calls it allows itself in flight; null when it keeps no such limit
     * @param requestsPerSecond the pace it allows itself; 0 when not pacing
     */
    public record Provider(String name, boolean circuitOpen, String circuitDetail, Integer concurrencyLimit,
                           double requestsPerSecond) {
    }
}
