package io.mergesynthesis.service.logging;

import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.RequestLog;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.component.ContainerLifeCycle;

/**
 * The configured request log, handed each request with its secrets removed: credential headers, query
 * parameters named like secrets, and token- or key-shaped text in the path and query. Whatever log format is
 * configured ({@code %r}, {@code %i{Authorization}}, {@code %queryString}, ...) then has nothing to reveal.
 */
public final class RedactedRequestLog extends ContainerLifeCycle implements RequestLog {

    private final RequestLog delegate;
    private final SecretRedactor redactor;

    RedactedRequestLog(RequestLog delegate, SecretRedactor redactor) {
        this.delegate = delegate;
        this.redactor = redactor;
        // The server starts and stops the request log it holds; now that is this one, so it carries the original.
        addBean(delegate);
    }

    /** Wraps the server's request log, if it has one; call before the server starts. */
    public static void install(Server server, SecretRedactor redactor) {
        RequestLog current = server.getRequestLog();
        if (current != null && !(current instanceof RedactedRequestLog)) {
            RequestLogStatus.quiet(current);
            server.setRequestLog(new RedactedRequestLog(current, redactor));
        }
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        RequestLogStatus.report(delegate);
    }

    RequestLog delegate() {
        return delegate;
    }

    @Override
    public void log(Request request, Response response) {
        delegate.log(new RedactedRequest(request, redactor), response);
    }
}
