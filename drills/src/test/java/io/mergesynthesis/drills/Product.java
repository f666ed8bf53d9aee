package io.mergesynthesis.drills;

import java.nio.file.Files;
import java.nio.file.Path;

/** The product under drill: the checkout's runnable jar and configuration. */
final class Product {

    private static final Path JAR = Path.of("service", "target", "merge-synthesis.jar");

    private Product() {
    }

    /** The checkout's root: the nearest directory, from here upwards, that holds the built service jar. */
    static Path root() {
        Path start = Path.of("").toAbsolutePath();
        for (Path dir = start; dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve(JAR))) {
                return dir;
            }
        }
        throw new IllegalStateException("cannot find " + JAR + " in " + start + " or a parent directory; build "
                + "it first (mvn -B verify builds it before the drills run)");
    }

    static Path jar() {
        return root().resolve(JAR);
    }

    static Path config() {
        return root().resolve("config.yml");
    }

    /** Where drills keep their logs, call journals and reports: {@code drills/target/drills}. */
    static Path workDirectory() {
        return root().resolve("drills").resolve("target").resolve("drills");
    }
}
