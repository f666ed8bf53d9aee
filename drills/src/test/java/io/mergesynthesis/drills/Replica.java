package io.mergesynthesis.drills;

import io.mergesynthesis.harness.ServiceProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One replica: the product's server in a process of its own, pointed at the drill's database (see
 * {@link ServiceProcess}).
 *
 * <p>A replica keeps its name across restarts (its log is appended to); each start is a new process with a new
 * lease owner.
 */
final class Replica extends ServiceProcess {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    private static final Pattern POOL_STARTED = Pattern.compile("Synthesis pool (\\S+) started");

    /**
     * @param settings Dropwizard settings without the {@code dw.} prefix, e.g. {@code synthesis.workers=4}
     */
    Replica(String name, DrillDatabase database, Path directory, Map<String, String> settings) {
        this(name, database, directory, settings, Map.of());
    }

    /**
     * @param environment variables the shipped {@code config.yml} reads (e.g. {@code SYNTHESIZER}), set on top of
     *     the drill's own environment and the database and port variables
     */
    Replica(String name, DrillDatabase database, Path directory, Map<String, String> settings,
            Map<String, String> environment) {
        super(ServiceProcess.builder(name, Product.root(), directory.resolve(name + ".log"))
                .appendLog()
                .heap("256m")
                .setting("loadSamples", "false")
                .setting("database.properties.ApplicationName", "drill-" + name)
                .settings(settings)
                .database(database.url(), database.user(), "")
                .environment(environment));
    }

    /** Starts the process and waits until {@code /healthcheck} answers 200. */
    Replica start() {
        start(START_TIMEOUT);
        return this;
    }

    @Override
    public Replica launch() {
        super.launch();
        return this;
    }

    /** The lease owner of the current process's pool, as its log announced it. */
    String owner() {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            Matcher matcher = POOL_STARTED.matcher(logSinceStart());
            if (matcher.find()) {
                return matcher.group(1);
            }
            sleep(100);
        }
        throw new IllegalStateException(name() + " never logged its pool's start; its log ends with:\n"
                + logTail(40));
    }

    /** Stops the process if it runs: SIGTERM, then SIGKILL after 40 s. */
    void stop() {
        stop(Duration.ofSeconds(40));
    }
}
