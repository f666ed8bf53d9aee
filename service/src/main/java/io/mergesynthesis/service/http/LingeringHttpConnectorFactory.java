package io.mergesynthesis.service.http;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonTypeName;
import io.dropwizard.jetty.HttpConnectorFactory;
import io.dropwizard.util.DataSize;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.io.ManagedSelector;
import org.eclipse.jetty.io.SocketChannelEndPoint;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.Scheduler;
import org.eclipse.jetty.util.thread.ThreadPool;

/**
 * Dropwizard's HTTP connector ({@code type: http}, with all its settings) whose connections close in stages
 * ({@link LingeringClose}): {@code type: lingering-http} in the server's {@code applicationConnectors}.
 *
 * <p>Settings of its own: {@code lingerTime} (default 3s), how long a closing connection waits for the client to
 * close its half; {@code lingerBytes} (default 8MiB), how much the client may still send meanwhile;
 * {@code maxLingering} (default 512), how many connections may linger at once.
 */
@JsonTypeName("lingering-http")
public class LingeringHttpConnectorFactory extends HttpConnectorFactory {

    @NotNull
    private Duration lingerTime = Duration.seconds(3);

    @NotNull
    private DataSize lingerBytes = DataSize.mebibytes(8);

    @Min(0)
    private int maxLingering = 512;

    @JsonProperty
    public Duration getLingerTime() {
        return lingerTime;
    }

    @JsonProperty
    public void setLingerTime(Duration lingerTime) {
        this.lingerTime = lingerTime;
    }

    @JsonProperty
    public DataSize getLingerBytes() {
        return lingerBytes;
    }

    @JsonProperty
    public void setLingerBytes(DataSize lingerBytes) {
        this.lingerBytes = lingerBytes;
    }

    @JsonProperty
    public int getMaxLingering() {
        return maxLingering;
    }

    @JsonProperty
    public void setMaxLingering(int maxLingering) {
        this.maxLingering = maxLingering;
    }

    /**
     * The connector {@link HttpConnectorFactory} builds, with endpoints that linger. Its settings (ports, accept
     * queue, proxy protocol, threads, timeouts) are taken from the connector the parent builds, which is then
     * dropped unstarted: there is no other way into the endpoints a {@link ServerConnector} makes.
     */
    @Override
    protected ServerConnector buildConnector(Server server, Scheduler scheduler, ByteBufferPool bufferPool, String name,
                                             ThreadPool threadPool, ConnectionFactory... factories) {
        ServerConnector configured = super.buildConnector(server, scheduler, bufferPool, name, threadPool, factories);
        LingeringClose closing = new LingeringClose(name, lingerTime.toMilliseconds(), lingerBytes.toBytes(),
                maxLingering);
        ServerConnector connector = new ServerConnector(server, threadPool, scheduler, bufferPool,
                configured.getAcceptors(), configured.getSelectorManager().getSelectorCount(),
                configured.getConnectionFactories().toArray(ConnectionFactory[]::new)) {
            @Override
            protected SocketChannelEndPoint newEndPoint(SocketChannel channel, ManagedSelector selector,
                                                        SelectionKey key) {
                SocketChannelEndPoint endPoint = new LingeringEndPoint(channel, selector, key, getScheduler(), closing);
                endPoint.setIdleTimeout(getIdleTimeout());
                return endPoint;
            }
        };
        connector.addManaged(closing);
        connector.setPort(configured.getPort());
        connector.setHost(configured.getHost());
        connector.setInheritChannel(configured.isInheritChannel());
        connector.setAcceptQueueSize(configured.getAcceptQueueSize());
        connector.setReuseAddress(configured.getReuseAddress());
        connector.setIdleTimeout(configured.getIdleTimeout());
        connector.setName(configured.getName());
        return connector;
    }

    /** A socket endpoint that hands its channel to {@link LingeringClose} instead of closing it outright. */
    static final class LingeringEndPoint extends SocketChannelEndPoint {
        private final LingeringClose closing;
        private volatile SelectionKey key;

        LingeringEndPoint(SocketChannel channel, ManagedSelector selector, SelectionKey key, Scheduler scheduler,
                          LingeringClose closing) {
            super(channel, selector, key, scheduler);
            this.closing = closing;
            this.key = key;
        }

        @Override
        public void replaceKey(SelectionKey newKey) {
            super.replaceKey(newKey);
            this.key = newKey;
        }

        @Override
        public void doClose() {
            // The selector must stop watching the channel now, as if it were closed: the endpoint is.
            SelectionKey current = key;
            if (current != null) {
                current.cancel();
            }
            if (!closing.adopt(getChannel())) {
                super.doClose();
            }
        }
    }
}
