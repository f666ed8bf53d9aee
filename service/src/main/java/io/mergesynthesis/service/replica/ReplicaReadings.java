package io.mergesynthesis.service.replica;

import io.mergesynthesis.synthesis.ProviderState;
import java.time.Instant;
import java.util.List;

/** What a replica's heartbeat reports of its worker pool and providers, read afresh at every beat. */
public interface ReplicaReadings {

    /** The replica's name, as its leases' owner column shows it. */
    String replicaId();

    int workers();

    int inFlight();

    /** When a lease last went to a worker; null if none has. */
    Instant lastClaim();

    List<ProviderState> providers();

    /** A replica that runs no worker pool: it still beats, so the operator sees it serving pages and the API. */
    static ReplicaReadings withoutPool(String replicaId) {
        return new ReplicaReadings() {
            @Override
            public String replicaId() {
                return replicaId;
            }

            @Override
            public int workers() {
                return 0;
            }

            @Override
            public int inFlight() {
                return 0;
            }

            @Override
            public Instant lastClaim() {
                return null;
            }

            @Override
            public List<ProviderState> providers() {
                return List.of();
            }
        };
    }
}
