package io.mergesynthesis.bench;

import io.mergesynthesis.harness.Replica;
import java.util.Map;

/** How the benchmark starts a {@link Replica}: on the benchmark database, its log under the results folder. */
final class BenchReplicas {

    private BenchReplicas() {
    }

    /**
     * Starts a replica and waits until its {@code /healthcheck} answers 200.
     *
     * @param overrides Dropwizard {@code -Ddw.*} settings, without the prefix ({@code synthesis.workers=4})
     * @throws Replica.RefusedToStart when the process ends or stays unhealthy; the message carries its log's end
     */
    static Replica start(String name, Options options, BenchDatabase db, Map<String, String> overrides,
                         String heap) throws Replica.RefusedToStart {
        return start(name, options, db, overrides, Map.of(), heap);
    }

    /**
     * As {@link #start(String, Options, BenchDatabase, Map, String)}, with more environment variables for the
     * process ({@code SYNTHESIZER=llm}, a provider's base URL), set after the database and port ones.
     */
    static Replica start(String name, Options options, BenchDatabase db, Map<String, String> overrides,
                         Map<String, String> environment, String heap) throws Replica.RefusedToStart {
        Replica replica = new Replica(Replica.builder(name, options.productRoot(),
                        options.out().resolve("logs").resolve(name + ".log"), "bench-" + name)
                .heap(heap)
                .settings(overrides)
                .database(db.url(), db.user(), db.password())
                .environment(environment), "bench-" + name);
        try {
            replica.start();
        } catch (IllegalStateException e) {
            replica.close();
            throw new Replica.RefusedToStart(e.getMessage());
        }
        return replica;
    }
}
