package io.mergesynthesis.harness;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The product run from outside: a checkout's runnable jar and its shipped configuration. */
public final class Product {

    public static final Path JAR = Path.of("service", "target", "merge-synthesis.jar");
    public static final Path CONFIG = Path.of("config.yml");

    private Product() {
    }

    /**
     * The checkout to run: {@code given} if set, else the current directory or the nearest parent that holds the
     * service jar (so that the harness works from the checkout's root and from a module's directory alike).
     */
    public static Path findRoot(Path given) {
        if (given != null) {
            Path root = given.toAbsolutePath().normalize();
            if (!Files.isRegularFile(root.resolve(JAR))) {
                throw new IllegalStateException("no " + JAR + " under " + root
                        + ": build it first with mvn -B -q package -DskipTests");
            }
            return root;
        }
        Path start = Path.of("").toAbsolutePath();
        for (Path dir = start; dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve(JAR))) {
                return dir;
            }
        }
        throw new IllegalStateException("cannot find " + JAR + " in " + start + " or any parent directory. "
                + "Build it first: mvn -B -q package -DskipTests (from the checkout's root; mvn -B verify builds "
                + "it before the benchmark and the drills run)");
    }

    /** The checkout found from the current directory, as {@link #findRoot} finds it. */
    public static Path root() {
        return findRoot(null);
    }

    /** Where a module that runs the product keeps its logs and reports: {@code MODULE/target/MODULE}. */
    public static Path workDirectory(String module) {
        return root().resolve(module).resolve("target").resolve(module);
    }

    public static Path jar(Path root) {
        return root.resolve(JAR);
    }

    public static Path config(Path root) {
        return root.resolve(CONFIG);
    }

    /** {@code java FLAGS... -jar merge-synthesis.jar ARGS... config.yml}, with this JVM's own {@code java}. */
    static List<String> commandLine(Path root, List<String> jvmFlags, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmFlags);
        command.add("-jar");
        command.add(jar(root).toString());
        command.addAll(args);
        command.add(config(root).toString());
        return command;
    }
}
