package io.mergesynthesis.drills;

import io.mergesynthesis.harness.Product;
import io.mergesynthesis.harness.Replica;
import io.mergesynthesis.harness.ServiceProcess;
import java.nio.file.Path;
import java.util.Map;

/**
 * How a drill makes a {@link Replica}: on the drill's database, with a small heap, its log in the drill's
 * directory and appended to across restarts, so that one log tells a restarted replica's whole story. (Like every
 * server of a test run, it maps its classes from the run's class archive, so that it starts sooner.)
 */
final class DrillReplicas {

    private DrillReplicas() {
    }

    /** @param settings Dropwizard settings without the {@code dw.} prefix, e.g. {@code synthesis.workers=4} */
    static Replica of(String name, DrillDatabase database, Path directory, Map<String, String> settings) {
        return of(name, database, directory, settings, Map.of());
    }

    /**
     * @param environment variables the shipped {@code config.yml} reads (e.g. {@code SYNTHESIZER}), set on top of
     *     the drill's own environment and the database and port variables
     */
    static Replica of(String name, DrillDatabase database, Path directory, Map<String, String> settings,
                      Map<String, String> environment) {
        ServiceProcess.Builder builder = Replica.builder(name, Product.root(), directory.resolve(name + ".log"),
                        "drill-" + name)
                .appendLog()
                .heap("256m")
                .settings(settings)
                .database(database.url(), database.user(), "")
                .environment(environment);
        return new Replica(builder, "drill-" + name);
    }
}
