package io.mergesynthesis.bench;

import io.mergesynthesis.harness.ServiceProcess;
import java.io.IOException;
import java.util.Map;

/** Runs one of the product's own commands ({@code db migrate}, ...) against the benchmark database. */
final class ServiceCommand {

    private ServiceCommand() {
    }

    /** Runs {@code java -jar merge-synthesis.jar ARGS... config.yml} and returns its standard output. */
    static String run(Options options, BenchDatabase db, String logName, String... args) throws IOException {
        return ServiceProcess.runCommand(options.productRoot(),
                Map.of("DATABASE_URL", db.url(), "DATABASE_USER", db.user(), "DATABASE_PASSWORD", db.password()),
                options.out().resolve("logs").resolve(logName + ".log"), args);
    }
}
