package io.mergesynthesis.service.api;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
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
 */
@PreMatching
@Priority(Priorities.AUTHENTICATION - 100)
public final class BodyLimitFilter implements ContainerRequestFilter, ContainerResponseFilter {

    private static final String BODY = BodyLimitFilter.class.getName() + ".body";
    static final int DRAIN_FACTOR = 4;

    private final long maxBytes;
    private final long drainLimit;

    public BodyLimitFilter(long maxBytes) {
        this.maxBytes = maxBytes;
        this.drainLimit = maxBytes * DRAIN_FACTOR;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        // As text: JAX-RS's getLength() is an int and throws on a longer Content-Length, which was a 500.
        String declared = request.getHeaderString(HttpHeaders.CONTENT_LENGTH);
        long length = declared == null ? -1 : declaredLength(declared);
        boolean hasBody = length > 0 || request.getHeaderString("Transfer-Encoding") != null;
        Bounded body = new Bounded(request.getEntityStream(), maxBytes, length);
        request.setProperty(BODY, hasBody ? body : null);
        if (length > maxBytes) {
            if (length <= drainLimit) {
                body.drain();
            }
            request.abortWith(tooLarge());
            return;
        }
        request.setEntityStream(body);
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        if (request.getProperty(BODY) instanceof Bounded body && !body.ended()) {
            response.getHeaders().putSingle("Connection", "close");
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

    private Response tooLarge() {
        return ErrorBody.response(Response.Status.REQUEST_ENTITY_TOO_LARGE,
                "request body is larger than " + maxBytes + " bytes: nothing was stored; send a smaller batch");
    }

    /**
     * The 4xx for a body that failed while being read, or null when the failure is not the client's doing. The
     * failures arrive as Jetty raises them: a ZipException inside a RuntimeException, Jetty's HTTP exceptions
     * (which carry their status), an end of stream before the declared end.
     */
    static WebApplicationException unreadable(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof ZipException) {
                return ErrorBody.exception(Response.Status.BAD_REQUEST,
                        "request body is not valid gzip data, although sent with Content-Encoding: gzip; nothing was stored");
            }
        }
        if (failure instanceof HttpException http && http.getCode() >= 400 && http.getCode() < 500) {
            String reason = http.getReason() == null ? "" : ": " + http.getReason();
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
        private long remaining;
        private long read;
        private boolean atEnd;

        Bounded(InputStream in, long limit, long declared) {
            super(in);
            this.remaining = limit;
            this.declared = declared;
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
            WebApplicationException answer = unreadable(failure);
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
                throw new WebApplicationException(tooLarge());
            }
        }

        /** Reads what is left of the body, up to the drain limit in all, and throws it away. */
        void drain() {
            byte[] sink = new byte[64 * 1024];
            try {
                while (read < drainLimit) {
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
    }

    private interface StreamCall {
        int run() throws IOException;
    }
}
