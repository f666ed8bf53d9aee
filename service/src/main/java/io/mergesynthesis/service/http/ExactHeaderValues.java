package io.mergesynthesis.service.http;

import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.component.Container;
import org.eclipse.jetty.util.component.LifeCycle;

/**
 * Makes Jetty hand the application every header value exactly as the client sent it.
 *
 * <p>Jetty remembers header lines per connection (Authorization among them) and, by default, matches a new line
 * against that cache ignoring letter case: on a kept-alive connection, {@code Bearer MSK_...} after
 * {@code Bearer msk_...} reached the application as the earlier value and was authenticated as that token, and a
 * valid token after its upper-cased twin was refused. Tokens are case-sensitive secrets, so the cache must be too.
 * Set on every connector while the server starts, before any connection is accepted.
 */
public final class ExactHeaderValues implements LifeCycle.Listener {

    @Override
    public void lifeCycleStarting(LifeCycle event) {
        if (event instanceof Server server) {
            for (Connector connector : server.getConnectors()) {
                configurations(connector).forEach(c -> c.setHeaderCacheCaseSensitive(true));
            }
        }
    }

    /** The HTTP settings of a connector's factories, also those wrapped by the metrics instrumentation. */
    static List<HttpConfiguration> configurations(Connector connector) {
        List<HttpConfiguration> found = new ArrayList<>();
        for (ConnectionFactory factory : connector.getConnectionFactories()) {
            if (factory instanceof HttpConfiguration.ConnectionFactory http) {
                found.add(http.getHttpConfiguration());
            }
            if (factory instanceof Container wrapper) {
                wrapper.getBeans(HttpConfiguration.ConnectionFactory.class)
                        .forEach(http -> found.add(http.getHttpConfiguration()));
            }
        }
        return found;
    }
}
