package io.mergesynthesis.harness;

import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One replica of the product: the service jar in a process of its own, on the shared database, talked to only
 * the way an operator or a client would (HTTP on its two ports, rows in the database). The benchmark and the
 * drills both run their replicas as this class; each says which database, settings and log through the
 * {@link ServiceProcess.Builder} from {@link #builder}.
 *
 * <p>A replica keeps its name across restarts; each start is a new process with a new lease owner.
 */
public final class Replica extends ServiceProcess implements AutoCloseable {

    /** A replica migrates the schema on its first start; on a busy machine that takes a while. */
    public static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    /** How long a graceful stop may take before the process is killed: a drain of the in-flight attempts. */
    private static final Duration STOP_PATIENCE = Duration.ofSeconds(40);
    private static final Pattern POOL_STARTED = Pattern.compile("Synthesis pool (\\S+) started");

    private final String applicationName;

    /**
     * The settings every replica starts with: no sample conflicts, and {@code applicationName} on its database
     * connections, so that {@code pg_stat_activity} tells whose they are. The caller's own settings come after
     * these and win.
     */
    public static Builder builder(String name, Path root, Path log, String applicationName) {
        return ServiceProcess.builder(name, root, log)
                .setting("loadSamples", "false")
                .setting("database.properties.ApplicationName", applicationName);
    }

    /** @param applicationName as given to {@link #builder} */
    public Replica(Builder builder, String applicationName) {
        super(builder);
        this.applicationName = applicationName;
    }

    /** The {@code application_name} this replica's connections carry in {@code pg_stat_activity}. */
    public String applicationName() {
        return applicationName;
    }

    /** Starts the process and waits until {@code /healthcheck} answers 200. */
    public Replica start() {
        start(START_TIMEOUT);
        return this;
    }

    @Override
    public Replica launch() {
        super.launch();
        return this;
    }

    /** The lease owner of the current process's pool, as its log announced it. */
    public String owner() {
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

    /** Stops the process if it runs: SIGTERM, then SIGKILL if it has not ended within the patience. */
    public void stop() {
        stop(STOP_PATIENCE);
    }

    @Override
    public void close() {
        stop();
    }

    /** A replica that could not be brought up; the message says why, with the end of its log. */
    public static final class RefusedToStart extends Exception {
        public RefusedToStart(String message) {
            super(message);
        }
    }
}
