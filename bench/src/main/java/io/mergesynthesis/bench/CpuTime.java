package io.mergesynthesis.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * CPU time spent by one JVM and by the database server over a window, to say what each conflict costs on both
 * sides. The JVM's is its process CPU time: for the benchmark's own process (where the db-scheduler peer runs)
 * what its {@code OperatingSystemMXBean} reports, for a replica what the operating system reports for its process.
 * The database's is the sum over the server's processes, read from {@code /proc}: the postmaster, every live
 * child of it (backends, WAL writer, checkpointer, autovacuum), and the children that ended during the window,
 * which the kernel adds to the postmaster's own account when it reaps them. Linux only, and only for the
 * embedded server, whose processes the benchmark knows; elsewhere the database side is not measured.
 */
final class CpuTime {

    /** Linux reports process times in clock ticks of 1/100 s on every architecture the JDK runs on. */
    private static final long NANOS_PER_TICK = 10_000_000L;
    private static final Path PROC = Path.of("/proc");

    private final OptionalLong jvmPid;
    private final OptionalLong postmasterPid;

    private CpuTime(OptionalLong jvmPid, OptionalLong postmasterPid) {
        this.jvmPid = jvmPid;
        this.postmasterPid = postmasterPid;
    }

    /** Measures the replica whose process is {@code pid}, and the database server when it can. */
    static CpuTime ofReplica(long pid, BenchDatabase db) {
        return new CpuTime(OptionalLong.of(pid), readable(db.postmasterPid()));
    }

    /** Measures the benchmark's own process, and the database server when it can. */
    static CpuTime ofThisProcess(BenchDatabase db) {
        return new CpuTime(OptionalLong.empty(), readable(db.postmasterPid()));
    }

    /** What was spent since {@link #start()}: a null side was not measured. */
    record Spent(Duration jvm, Duration postgres) {

        /** Milliseconds of JVM CPU per unit of work, or null when not measured. */
        Double jvmMillisPer(long units) {
            return jvm == null ? null : jvm.toNanos() / 1e6 / units;
        }

        /** Milliseconds of database CPU per unit of work, or null when not measured. */
        Double postgresMillisPer(long units) {
            return postgres == null ? null : postgres.toNanos() / 1e6 / units;
        }
    }

    /** A window opened at the time of the call. */
    final class Window {
        private final long jvmStart = jvmNanos();
        private final long postgresStart = postgresNanos();

        Spent spent() {
            long jvm = jvmNanos();
            long postgres = postgresNanos();
            return new Spent(jvmStart < 0 || jvm < 0 ? null : Duration.ofNanos(jvm - jvmStart),
                    postgresStart < 0 || postgres < 0 ? null : Duration.ofNanos(postgres - postgresStart));
        }
    }

    Window start() {
        return new Window();
    }

    /** Why the database side cannot be measured here, for the report; empty when it can. */
    static String postgresUnmeasuredReason(BenchDatabase db) {
        if (!Files.isDirectory(PROC)) {
            return "not measured: no /proc on this system";
        }
        return db.postmasterPid().isEmpty() ? "not measured: the database is not the embedded one" : "";
    }

    private long jvmNanos() {
        if (jvmPid.isEmpty()) {
            java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
            if (os instanceof com.sun.management.OperatingSystemMXBean hotspot) {
                return hotspot.getProcessCpuTime();
            }
            return -1;
        }
        return ProcessHandle.of(jvmPid.getAsLong())
                .flatMap(process -> process.info().totalCpuDuration())
                .map(Duration::toNanos)
                .orElse(-1L);
    }

    private long postgresNanos() {
        if (postmasterPid.isEmpty()) {
            return -1;
        }
        long postmaster = postmasterPid.getAsLong();
        long[] own = stat(postmaster);
        if (own.length == 0) {
            return -1;
        }
        // utime + stime of the postmaster, and cutime + cstime: its children that have ended.
        long ticks = own[1] + own[2] + own[3] + own[4];
        try (Stream<Path> entries = Files.list(PROC)) {
            ticks += entries.map(Path::getFileName).map(Path::toString)
                    .filter(name -> name.chars().allMatch(Character::isDigit))
                    .mapToLong(Long::parseLong)
                    .mapToObj(CpuTime::stat)
                    .filter(fields -> fields.length > 0 && fields[0] == postmaster)
                    .mapToLong(fields -> fields[1] + fields[2])
                    .sum();
        } catch (IOException e) {
            return -1;
        }
        return ticks * NANOS_PER_TICK;
    }

    /**
     * Parent pid, utime, stime, cutime and cstime of process {@code pid} from {@code /proc/<pid>/stat}, or an
     * empty array when it is gone or unreadable. The command name in parentheses may hold spaces, so the
     * fields are counted from the last closing parenthesis.
     */
    private static long[] stat(long pid) {
        try {
            String line = Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"));
            String[] fields = line.substring(line.lastIndexOf(')') + 2).trim().split(" ");
            // fields[0] is field 3 of stat(5): state; ppid is field 4, utime..cstime fields 14 to 17.
            return new long[] {Long.parseLong(fields[1]), Long.parseLong(fields[11]), Long.parseLong(fields[12]),
                    Long.parseLong(fields[13]), Long.parseLong(fields[14])};
        } catch (IOException | RuntimeException e) {
            return new long[0];
        }
    }

    private static OptionalLong readable(OptionalLong postmaster) {
        return Files.isDirectory(PROC) ? postmaster : OptionalLong.empty();
    }
}
