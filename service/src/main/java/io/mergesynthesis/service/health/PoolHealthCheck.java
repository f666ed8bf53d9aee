package io.mergesynthesis.service.health;

import com.codahale.metrics.health.HealthCheck;
import io.mergesynthesis.service.worker.pool.SynthesisPool;
import java.util.Optional;

/** "synthesis-pool": healthy while the claim loop and the workers are alive, or when the pool is switched off. */
public final class PoolHealthCheck extends HealthCheck {

    public static final String NAME = "synthesis-pool";

    private final Optional<SynthesisPool> pool;

    private PoolHealthCheck(Optional<SynthesisPool> pool) {
        this.pool = pool;
    }

    public static PoolHealthCheck of(SynthesisPool pool) {
        return new PoolHealthCheck(Optional.of(pool));
    }

    /** For a replica that runs the API alone. */
    public static PoolHealthCheck disabled() {
        return new PoolHealthCheck(Optional.empty());
    }

    @Override
    protected Result check() {
        if (pool.isEmpty()) {
            return Result.healthy("synthesis is disabled in this replica (synthesis.enabled: false)");
        }
        Optional<String> problem = pool.get().problem();
        return problem.map(Result::unhealthy)
                .orElseGet(() -> Result.healthy("pool " + pool.get().owner() + " is running"));
    }
}
