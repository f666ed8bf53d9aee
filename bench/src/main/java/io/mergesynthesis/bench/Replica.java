package io.mergesynthesis.bench;

import io.mergesynthesis.harness.ServiceProcess;
import java.time.Duration;
import java.util.Map;

/**
 * One replica of the product, pointed at the benchmark database (see {@link ServiceProcess}). The benchmark only
 * ever talks to it the way an operator or a client would: HTTP on its two ports and rows in the shared database.
 */
final class Replica extends ServiceProcess implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private Replica(Builder builder) {
        super(builder);
    }

    /**
     * Starts a replica and waits until its {@code /healthcheck} answers 200.
     *
     * @param overrides Dropwizard {@code -Ddw.*} settings, without the prefix ({@code synthesis.workers=4})
     * @throws ReplicaRefusedToStart when the process ends or stays unhealthy; the message carries its log's end
     */
    static Replica start(String name, Options options, BenchDatabase db, Map<String, String> overrides,
                         String heap) throws ReplicaRefusedToStart {
        return start(name, options, db, overrides, Map.of(), heap);
    }

    /**
     * As {@link #start(String, Options, BenchDatabase, Map, String)}, with more environment variables for the
     * process ({@code SYNTHESIZER=llm}, a provider's base URL), set after the database and port ones.
     */
    static Replica start(String name, Options options, BenchDatabase db, Map<String, String> overrides,
                         Map<String, String> environment, String heap) throws ReplicaRefusedToStart {
        Replica replica = new Replica(ServiceProcess.builder(name, options.productRoot(),
                        options.out().resolve("logs").resolve(name + ".log"))
                .heap(heap)
                .setting("database.properties.ApplicationName", applicationName(name))
                .setting("loadSamples", "false")
                .settings(overrides)
                .database(db.url(), db.user(), db.password())
                .environment(environment));
        try {
            replica.start(START_TIMEOUT);
        } catch (IllegalStateException e) {
            replica.close();
            throw new ReplicaRefusedToStart(e.getMessage());
        }
        return replica;
    }

    /** The {@code application_name} this replica's connections carry in {@code pg_stat_activity}. */
    static String applicationName(String replicaName) {
        return "bench-" + replicaName;
    }

    String applicationName() {
        return applicationName(name());
    }

    /** Asks the replica to stop (SIGTERM: a graceful shutdown), and kills it if it has not within 20 s. */
    @Override
    public void close() {
        stop(Duration.ofSeconds(20));
    }

    /** A replica that could not be brought up; the message says why, with the end of its log. */
    static final class ReplicaRefusedToStart extends Exception {
        ReplicaRefusedToStart(String message) {
            super(message);
        }
    }
}
