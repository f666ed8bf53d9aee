package io.mergesynthesis.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs one of the product's own commands ({@code db migrate}, ...) against the benchmark database. */
final class ServiceCommand {

    private ServiceCommand() {
    }

    /** Runs {@code java -jar merge-synthesis.jar ARGS... config.yml} and returns its standard output. */
    static String run(Options options, BenchDatabase db, String logName, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-jar");
        command.add(ProductFiles.jar(options.productRoot()).toString());
        command.addAll(List.of(args));
        command.add(ProductFiles.config(options.productRoot()).toString());
        Path log = options.out().resolve("logs").resolve(logName + ".log");
        Files.createDirectories(log.getParent());
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(options.productRoot().toFile())
                .redirectError(log.toFile());
        builder.environment().put("DATABASE_URL", db.url());
        builder.environment().put("DATABASE_USER", db.user());
        builder.environment().put("DATABASE_PASSWORD", db.password());
        Process process = builder.start();
        try {
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(5, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IOException(String.join(" ", args) + " did not finish within 5 minutes");
            }
            if (process.exitValue() != 0) {
                throw new IOException(String.join(" ", args) + " failed with status " + process.exitValue()
                        + "; see " + log);
            }
            return out;
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }
}
