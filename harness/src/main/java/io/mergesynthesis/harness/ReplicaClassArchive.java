package io.mergesynthesis.harness;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The classes a server loads as it starts, archived once with the JVM's class data sharing and mapped by every
 * server a test run starts after that (when the build sets {@code harness.classArchive}). The drills and the
 * benchmark's smoke run start replicas again and again (each kill is followed by a start, and they wait on those
 * starts), and most of a start is loading classes. The archive changes nothing a replica does, only where its JVM
 * reads the classes from; a replica whose archive is missing or does not match the jar runs without it, as sharing
 * is optional by default.
 *
 * <p>A replica of its own makes the archive, on the product's embedded database in a directory of its own so that
 * no test's database sees it: it starts, answers its health check, is stopped, and its JVM writes out the classes
 * it loaded as it exits. One archive per jar, beside it, made again when the jar is newer. Test JVMs side by side
 * make it one at a time, under a file lock, and the second finds the first's.
 */
final class ReplicaClassArchive {

    /** Made once per checkout and JVM: empty when it could not be made, and the servers start without it. */
    private static final Map<Path, Optional<Path>> ARCHIVES = new HashMap<>();

    private ReplicaClassArchive() {
    }

    /** The archive for the jar of the checkout at {@code root}, made now if there is none yet. */
    static synchronized Optional<Path> path(Path root) {
        return ARCHIVES.computeIfAbsent(root.toAbsolutePath().normalize(), ReplicaClassArchive::make);
    }

    private static Optional<Path> make(Path root) {
        Path dir = Product.jar(root).resolveSibling("replica-classes");
        Path made = dir.resolve("replica-classes.jsa");
        try {
            Files.createDirectories(dir);
            try (FileChannel lockFile = FileChannel.open(dir.resolve("lock"), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE);
                 FileLock lock = lockFile.lock()) {
                if (Files.isRegularFile(made) && !Files.getLastModifiedTime(made)
                        .toInstant().isBefore(Files.getLastModifiedTime(Product.jar(root)).toInstant())) {
                    return Optional.of(made);
                }
                long started = System.nanoTime();
                Path written = dir.resolve("writing-" + ProcessHandle.current().pid() + ".jsa");
                Files.deleteIfExists(written);
                Path data = Files.createTempDirectory(dir, "pgdata");
                Replica trainer = new Replica(Replica.builder("class-archive", root, dir.resolve("replica.log"),
                                "class-archive")
                        .withoutClassArchive()
                        .heap("256m")
                        .jvmFlag("-XX:ArchiveClassesAtExit=" + written)
                        .environment(Map.of("DATABASE_URL", "embedded",
                                "EMBEDDED_DATA_DIR", data.toString(),
                                "EMBEDDED_DB_PORT", Integer.toString(ServiceProcess.freePort()))),
                        "class-archive");
                try {
                    trainer.start();
                } finally {
                    // The JVM writes the archive on a graceful exit only.
                    trainer.stop();
                    deleteTree(data);
                }
                if (!Files.isRegularFile(written) || Files.size(written) == 0) {
                    System.out.println("replicas start without a class archive: the archiving replica wrote none;"
                            + " see " + dir.resolve("replica.log"));
                    return Optional.empty();
                }
                Files.move(written, made, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                System.out.printf("replica class archive made in %.1f s: %s%n", (System.nanoTime() - started) / 1e9,
                        made);
                return Optional.of(made);
            }
        } catch (IOException | RuntimeException e) {
            System.out.println("replicas start without a class archive: " + e);
            return Optional.empty();
        }
    }

    /** Deletes the archiving replica's database; what cannot be deleted stays in the build's directory. */
    private static void deleteTree(Path top) {
        try (Stream<Path> paths = Files.walk(top)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException | RuntimeException e) {
            System.out.println("the class archive's database stays in " + top + ": " + e);
        }
    }
}
