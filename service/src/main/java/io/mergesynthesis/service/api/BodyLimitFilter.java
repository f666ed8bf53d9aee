package io.mergesynthesis.service.api;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.Response;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Refuses request bodies over the configured size with 413, before any of it is parsed or stored. A declared
 * Content-Length is checked up front; a chunked body is counted as it is read.
 */
@PreMatching
@Priority(Priorities.AUTHENTICATION - 100)
public final class BodyLimitFilter implements ContainerRequestFilter {

    private final long maxBytes;

    public BodyLimitFilter(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        if (request.getLength() > maxBytes) {
            request.abortWith(tooLarge());
            return;
        }
        if (request.hasEntity()) {
            request.setEntityStream(new Bounded(request.getEntityStream(), maxBytes));
        }
    }

    private Response tooLarge() {
        return ErrorBody.response(Response.Status.REQUEST_ENTITY_TOO_LARGE,
                "request body is larger than " + maxBytes + " bytes: nothing was stored; send a smaller batch");
    }

    private final class Bounded extends FilterInputStream {
        private long remaining;

        Bounded(InputStream in, long limit) {
            super(in);
            this.remaining = limit;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            if (n > 0) {
                count(n);
            }
            return n;
        }

        private void count(int n) {
            remaining -= n;
            if (remaining < 0) {
                throw new jakarta.ws.rs.WebApplicationException(tooLarge());
            }
        }
    }
}
