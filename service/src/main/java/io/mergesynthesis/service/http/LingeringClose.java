package io.mergesynthesis.service.http;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.util.component.AbstractLifeCycle;

/**
 * Closes the server's side of a connection in stages, as HTTP/1.1 asks of a server that closes (RFC 9112,
 * section 9.6): first only the sending half, after the answer, then the rest once the client has closed its
 * half, reading and throwing away whatever the client still sends in between.
 *
 * <p>Why: closing a socket while request bytes are still unread, or while the client is still sending, makes
 * the kernel answer with a reset. Jetty does so after every request it refuses while parsing it (a request line
 * or headers too long, a malformed header) and after any answer that leaves part of the body unread. The answer
 * has gone out by then, but a client that is still sending meets the reset when it writes, and java.net.http
 * (for one) then reports a failed exchange instead of the answer it already received.
 *
 * <p>The lingering is bounded three ways, so that a client cannot hold the server with it: a time from the
 * close, a number of bytes thrown away, and a number of connections lingering at once. Past any bound the
 * connection is closed at once, as it would have been without this. Reading never blocks: a single thread looks
 * at the lingering connections every few milliseconds, and only while there are any.
 */
final class LingeringClose extends AbstractLifeCycle {

    private static final long TICK_MILLIS = 10;

    private final String name;
    private final long lingerNanos;
    private final long maxBytes;
    private final int maxConnections;
    private final Set<Lingering> lingering = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean tickPending = new AtomicBoolean();
    private final ByteBuffer sink = ByteBuffer.allocate(64 * 1024);
    private volatile ScheduledExecutorService ticker;

    LingeringClose(String name, long lingerMillis, long maxBytes, int maxConnections) {
        this.name = name;
        this.lingerNanos = TimeUnit.MILLISECONDS.toNanos(lingerMillis);
        this.maxBytes = maxBytes;
        this.maxConnections = maxConnections;
    }

    /**
     * Takes over closing {@code channel}: ends its sending half now and the whole of it once the client has
     * closed, or a bound is reached. False when it will not (stopped, or too many lingering): the caller closes.
     */
    boolean adopt(SocketChannel channel) {
        ScheduledExecutorService current = ticker;
        if (current == null || !isRunning() || lingering.size() >= maxConnections || !channel.isOpen()) {
            return false;
        }
        try {
            channel.shutdownOutput();
        } catch (IOException e) {
            // Already shut, or the connection is gone: the reads below find out which.
        }
        Lingering one = new Lingering(channel, System.nanoTime() + lingerNanos);
        // Most connections end with the client's own close, already there: nothing to linger for.
        if (one.discard(ByteBuffer.allocate(8 * 1024))) {
            one.close();
            return true;
        }
        lingering.add(one);
        if (!isRunning() && lingering.remove(one)) {
            // Stopped meanwhile, after doStop closed the others.
            one.close();
            return true;
        }
        wake(current);
        return true;
    }

    /** How many connections are lingering now. */
    int lingering() {
        return lingering.size();
    }

    @Override
    protected void doStart() throws Exception {
        ticker = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "lingering-close-" + name);
            thread.setDaemon(true);
            return thread;
        });
        super.doStart();
    }

    @Override
    protected void doStop() throws Exception {
        ScheduledExecutorService current = ticker;
        ticker = null;
        if (current != null) {
            current.shutdownNow();
            current.awaitTermination(1, TimeUnit.SECONDS);
        }
        lingering.forEach(Lingering::close);
        lingering.clear();
        super.doStop();
    }

    private void wake(ScheduledExecutorService current) {
        if (tickPending.compareAndSet(false, true)) {
            try {
                current.schedule(this::tick, TICK_MILLIS, TimeUnit.MILLISECONDS);
            } catch (RuntimeException e) {
                // Stopping: doStop closes what is left.
                tickPending.set(false);
            }
        }
    }

    private void tick() {
        tickPending.set(false);
        for (Iterator<Lingering> it = lingering.iterator(); it.hasNext(); ) {
            Lingering one = it.next();
            if (one.discard(sink)) {
                it.remove();
                one.close();
            }
        }
        ScheduledExecutorService current = ticker;
        if (!lingering.isEmpty() && current != null) {
            wake(current);
        }
    }

    /** One connection whose sending half is closed, waiting for the client to close the other. */
    private final class Lingering {
        private final SocketChannel channel;
        private final long deadline;
        private long discarded;

        Lingering(SocketChannel channel, long deadline) {
            this.channel = channel;
            this.deadline = deadline;
        }

        /** Reads and throws away what has arrived; true when the connection can be closed now. */
        boolean discard(ByteBuffer buffer) {
            try {
                while (true) {
                    buffer.clear();
                    int n = channel.read(buffer);
                    if (n < 0) {
                        return true;
                    }
                    if (n == 0) {
                        return System.nanoTime() - deadline >= 0;
                    }
                    discarded += n;
                    if (discarded > maxBytes) {
                        return true;
                    }
                }
            } catch (IOException | RuntimeException e) {
                return true;
            }
        }

        void close() {
            try {
                channel.close();
            } catch (IOException e) {
                // Closing is all that was left to do.
            }
        }
    }
}
