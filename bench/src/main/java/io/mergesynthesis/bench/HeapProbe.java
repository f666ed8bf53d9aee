package io.mergesynthesis.bench;

import com.sun.tools.attach.VirtualMachine;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import javax.management.MBeanServerConnection;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * Samples a replica's used heap every 100 ms while something runs, through the JDK's attach mechanism (the
 * same one {@code jcmd} uses) and the replica's local JMX agent: no flag on the replica, nothing on the network.
 */
final class HeapProbe implements AutoCloseable {

    private static final long INTERVAL_MILLIS = 100;

    private final JMXConnector connector;
    private final MemoryMXBean memory;
    private final Thread thread;
    private volatile boolean stopped;
    private long min = Long.MAX_VALUE;
    private long max;

    private HeapProbe(JMXConnector connector, MemoryMXBean memory) {
        this.connector = connector;
        this.memory = memory;
        this.thread = new Thread(this::sample, "heap-probe");
        this.thread.setDaemon(true);
    }

    /** Attaches to the process {@code pid} and starts sampling. */
    static HeapProbe attach(long pid) throws Exception {
        VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
        String address;
        try {
            address = vm.startLocalManagementAgent();
        } finally {
            vm.detach();
        }
        JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(address));
        MBeanServerConnection server = connector.getMBeanServerConnection();
        MemoryMXBean memory = ManagementFactory.newPlatformMXBeanProxy(server,
                ManagementFactory.MEMORY_MXBEAN_NAME, MemoryMXBean.class);
        HeapProbe probe = new HeapProbe(connector, memory);
        probe.thread.start();
        return probe;
    }

    private void sample() {
        while (!stopped) {
            try {
                long used = memory.getHeapMemoryUsage().getUsed();
                synchronized (this) {
                    min = Math.min(min, used);
                    max = Math.max(max, used);
                }
                Thread.sleep(INTERVAL_MILLIS);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                return; // the replica went away; keep what was seen
            }
        }
    }

    /** The smallest and largest used heap seen, in MiB. */
    record Range(double minMib, double maxMib) {
    }

    Range stop() {
        stopped = true;
        thread.interrupt();
        try {
            thread.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            return new Range(min / 1048576.0, max / 1048576.0);
        }
    }

    @Override
    public void close() throws Exception {
        stopped = true;
        connector.close();
    }
}
