package io.mergesynthesis.bench;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the product under test lives: its runnable jar and its configuration, found from a checkout. */
final class ProductFiles {

    static final Path JAR = Path.of("service", "target", "merge-synthesis.jar");
    static final Path CONFIG = Path.of("config.yml");

    private ProductFiles() {
    }

    /**
     * The checkout to benchmark: {@code given} if set, else the current directory or the nearest parent that
     * holds the service jar (so the benchmark runs from the checkout's root and from {@code bench/} alike).
     */
    static Path findRoot(Path given) {
        if (given != null) {
            Path root = given.toAbsolutePath().normalize();
            requireJar(root);
            return root;
        }
        Path start = Path.of("").toAbsolutePath();
        for (Path dir = start; dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve(JAR))) {
                return dir;
            }
        }
        throw new IllegalStateException("cannot find " + JAR + " in " + start + " or any parent directory. "
                + "Build it first: mvn -B -q package -DskipTests (from the checkout's root), "
                + "or pass --product-root DIR");
    }

    static Path jar(Path root) {
        return root.resolve(JAR);
    }

    static Path config(Path root) {
        return root.resolve(CONFIG);
    }

    private static void requireJar(Path root) {
        if (!Files.isRegularFile(root.resolve(JAR))) {
            throw new IllegalStateException("no " + JAR + " under " + root
                    + ": build it first with mvn -B -q package -DskipTests");
        }
    }
}
