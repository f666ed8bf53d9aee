package io.mergesynthesis.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** A description of the machine the figures were taken on, for the report. */
final class Machine {

    private Machine() {
    }

    static Map<String, Object> describe() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("cpu", cpuModel());
        out.put("cores", Runtime.getRuntime().availableProcessors());
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            out.put("memory_gib", Math.round(os.getTotalMemorySize() / (1024.0 * 1024 * 1024) * 10) / 10.0);
            out.put("load_average_at_start", os.getSystemLoadAverage());
        }
        out.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        out.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        return out;
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: the architecture below is all there is
        }
        return System.getProperty("os.arch");
    }
}
