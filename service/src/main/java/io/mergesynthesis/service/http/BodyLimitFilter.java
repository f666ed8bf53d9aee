package io.mergesynthesis.service.http;

import io.mergesynthesis.service.api.ErrorBody;
import jakarta.annotation.Priority;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.zip.ZipException;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.io.EofException;

/**
 * Refuses request bodies over the configured size with 413, before any of it is parsed or stored. A declared
 * Content-Length is checked up front; a chunked body is counted as it is read.
 *
 * <p>The body is only wrapped here, never read: reading even its first byte would wait for it and decode it
 * (Content-Encoding: gzip) before the caller is known. Whoever reads it later gets a 4xx instead of a failure
 * when the body cannot be read to its end: gzip that is not gzip, broken chunked framing, a body cut short.
 *
 * <p>An answer given before the body was read to its end (413, 401 for a bad token, any answer that needs no
 * body) says {@code Connection: close}. Jetty closes such a connection rather than read the rest, but once the
 * answer is sent it can no longer say so, and a client that reuses the connection as HTTP/1.1 allows loses its
 * next request.
 *
 * <p>Before a 413, the rest of the body is read and thrown away, up to {@value #DRAIN_FACTOR} times the limit in
 * all. A client still uploading when the answer comes and the connection closes under it often never reads the
 * answer (java.net.http reports an empty response), and so never learns to send smaller batches. Past that
 * much, the sender is not worth the reading and the connection is closed on it.
 *
 * <p>Any other answer given after the body's reading began but before its end (a JSON limit hit in the first
 * kilobytes, malformed JSON early in a large batch) drains the rest the same way, within the same size and
 * within {@link #DRAIN_TIME} as well: closing a connection whose receive buffer still holds request bytes
 * makes the kernel send a reset, and a reset can discard the answer at the client before it is read. The
 * time bound is there because a client may send half a body and wait: the drain reads only bytes that have
 * arrived, so it never blocks, and gives up at the bound. An answer
 * given before any of the body was read (401, 403) drains nothing: the client may not be sending at all.
 */
@PreMatching
@Priority(Priorities.AUTHENTICATION - 100)
public final class BodyLimitFilter implements ContainerRequestFilter, ContainerResponseFilter {

    private static final String BODY = BodyLimitFilter.class.getName() + ".body";
    static final int DRAIN_FACTOR = 4;
    static final Duration DRAIN_TIME = Duration.ofSeconds(3);

    @Context
    private HttpServletRequest servletRequest;

    private final long maxBytes;
    private final long drainLimit;
    private final int maxBatchSize;

    /** @param maxBatchSize the most conflicts one ingest request may report, for the ingest endpoint's 413 */
    public BodyLimitFilter(long maxBytes, int maxBatchSize) {
        this.maxBytes = maxBytes;
        this.drainLimit = maxBytes * DRAIN_FACTOR;
        this.maxBatchSize = maxBatchSize;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        // As text: JAX-RS's getLength() is an int and throws on a longer Content-Length, which was a 500.
        String declared = request.getHeaderString(HttpHeaders.CONTENT_LENGTH);
        long length = declared == null ? -1 : declaredLength(declared);
        boolean hasBody = length > 0 || request.getHeaderString("Transfer-Encoding") != null;
        String refusal = refusal(request.getMethod(), request.getUriInfo().getPath());
        Bounded body = new Bounded(request.getEntityStream(), maxBytes, length, refusal);
        request.setProperty(BODY, hasBody ? body : null);
        if (length > maxBytes) {
            if (length <= drainLimit) {
                body.drain();
            }
            request.abortWith(tooLarge(refusal));
            return;
        }
        request.setEntityStream(body);
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        if (request.getProperty(BODY) instanceof Bounded body && !body.ended()) {
            if (body.begun()) {
                drainWithin(body, DRAIN_TIME);
            }
            if (!body.ended()) {
                response.getHeaders().putSingle("Connection", "close");
            }
        }
    }

    /**
     * Drains {@code body} for at most {@code time}, reading only what has arrived, so that no read can wait past
     * the bound. Outside a servlet container (a resource test) there is no connection to drain.
     */
    private void drainWithin(Bounded body, Duration time) {
        ServletInputStream arrived;
        try {
            arrived = servletRequest == null ? null : servletRequest.getInputStream();
        } catch (IOException | RuntimeException e) {
            return;
        }
        if (arrived != null) {
            body.drainArrived(arrived, System.nanoTime() + time.toNanos());
        }
    }

    /** Jetty has refused any Content-Length that is not a number; only the size is left to judge. */
    private static long declaredLength(String header) {
        try {
            return Long.parseLong(header.trim());
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * The 413's words for a request to {@code method} {@code path}: the limit and the endpoint it was hit on, and,
     * for ingest alone, that a batch can be split and how many conflicts one may hold.
     */
    String refusal(String method, String path) {
        String endpoint = method + " /" + (path.startsWith("/") ? path.substring(1) : path);
        if (endpoint.length() > 200) {
            endpoint = endpoint.substring(0, 200) + "...";
        }
        String said = "request body is larger than " + size(maxBytes) + ", the limit for " + endpoint
                + ": nothing was stored";
        if (endpoint.equals("POST /v1/conflicts")) {
            said += "; send a smaller batch (at most " + maxBatchSize + " conflicts in a body of at most that size)";
        }
        return said;
    }

    private static String size(long bytes) {
        long mib = 1024 * 1024;
        if (bytes % mib == 0) {
            return bytes / mib + " MiB (" + bytes + " bytes)";
        }
        return bytes % 1024 == 0 ? bytes / 1024 + " KiB (" + bytes + " bytes)" : bytes + " bytes";
    }

    private static Response tooLarge(String refusal) {
        return ErrorBody.response(Response.Status.REQUEST_ENTITY_TOO_LARGE, refusal);
    }

    /**
     * The 4xx for a body that failed while being read, or null when the failure is not the client's doing. The
     * failures arrive as Jetty raises them: a ZipException inside a RuntimeException, Jetty's HTTP exceptions
     * (which carry their status), an end of stream before the declared end.
     */
    static WebApplicationException unreadable(Throwable failure, boolean chunked) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof ZipException) {
                return ErrorBody.exception(Response.Status.BAD_REQUEST,
                        "request body is not valid gzip data, although sent with Content-Encoding: gzip; nothing was stored");
            }
        }
        if (failure instanceof HttpException http && http.getCode() >= 400 && http.getCode() < 500) {
            // Jetty says "Early EOF" for a chunk size that is not hexadecimal as much as for a body cut short.
            String reason = http.getReason() == null ? ""
                    : chunked && "Early EOF".equals(http.getReason())
                    ? ": its chunked framing is broken (a chunk size that is not hexadecimal) or it ended early"
                    : ": " + http.getReason();
            return new WebApplicationException(failure, ErrorBody.response(http.getCode(),
                    "request body could not be read" + reason + "; nothing was stored", List.of()));
        }
        if (failure instanceof EofException) {
            return ErrorBody.exception(Response.Status.BAD_REQUEST,
                    "request body ended before its declared end; nothing was stored");
        }
        return null;
    }

    private final class Bounded extends FilterInputStream {
        private final long declared;
        private final String refusal;
        private long remaining;
        private long read;
        private boolean atEnd;

        Bounded(InputStream in, long limit, long declared, String refusal) {
            super(in);
            this.remaining = limit;
            this.declared = declared;
            this.refusal = refusal;
        }

        /** Whether the whole body came off the connection: every declared byte, or the end of a chunked one. */
        boolean ended() {
            return atEnd || declared >= 0 && read >= declared;
        }

        @Override
        public int read() throws IOException {
            int b = guarded(super::read);
            if (b >= 0) {
                count(1);
            } else {
                atEnd = true;
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = guarded(() -> super.read(buffer, offset, length));
            if (n > 0) {
                count(n);
            } else if (n < 0) {
                atEnd = true;
            }
            return n;
        }

        @Override
        public int available() throws IOException {
            return guarded(super::available);
        }

        private int guarded(StreamCall call) throws IOException {
            try {
                return call.run();
            } catch (WebApplicationException e) {
                throw e;
            } catch (IOException e) {
                throw answerOr(e);
            } catch (RuntimeException e) {
                throw answerOr(e);
            }
        }

        private <E extends Exception> E answerOr(E failure) {
            WebApplicationException answer = unreadable(failure, declared < 0);
            if (answer != null) {
                throw answer;
            }
            return failure;
        }

        private void count(int n) {
            read += n;
            remaining -= n;
            if (remaining < 0) {
                drain();
                throw new WebApplicationException(tooLarge(refusal));
            }
        }

        /** Whether any of the body has been read. */
        boolean begun() {
            return read > 0 || atEnd;
        }

        /** Reads what is left of the body, up to the drain limit in all, and throws it away. */
        void drain() {
            byte[] sink = new byte[64 * 1024];
            try {
                while (read < drainLimit && !ended()) {
                    int n = in.read(sink, 0, (int) Math.min(sink.length, drainLimit - read));
                    if (n < 0) {
                        atEnd = true;
                        return;
                    }
                    read += n;
                }
            } catch (IOException | RuntimeException e) {
                // The client stopped sending or sent something unreadable: the 413 goes out all the same.
            }
        }

        /**
         * Like {@link #drain()}, reading from {@code arrived} (the same body, as the servlet container gives it)
         * only what has arrived, and looking again every few milliseconds until the body ends, the drain limit is
         * reached or {@code deadline} ({@link System#nanoTime()}) passes.
         */
        void drainArrived(ServletInputStream arrived, long deadline) {
            byte[] sink = new byte[64 * 1024];
            try {
                while (read < drainLimit && !ended()) {
                    if (arrived.isFinished()) {
                        atEnd = true;
                        return;
                    }
                    int available = arrived.available();
                    if (available > 0) {
                        int n = arrived.read(sink, 0, (int) Math.min(Math.min(sink.length, available), drainLimit - read));
                        if (n < 0) {
                            atEnd = true;
                            return;
                        }
                        read += n;
                    } else if (System.nanoTime() - deadline >= 0) {
                        return;
                    } else {
                        Thread.sleep(5);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IOException | RuntimeException e) {
                // The client stopped sending or sent something unreadable: the answer goes out all the same.
            }
        }
    }

    private interface StreamCall {
        int run() throws IOException;
    }
}
