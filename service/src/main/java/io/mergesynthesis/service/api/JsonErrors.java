package io.mergesynthesis.service.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.core.setup.Environment;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.component.LifeCycle;

/**
 * The API's error body for the errors Jetty answers itself, before Jersey sees the request: a request line or
 * header it cannot parse (400, 414, 431, 505), and errors the servlet layer raises (an unknown method, a
 * malformed Content-Type or Accept). Jetty answers those with an HTML page, or with no body at all when the
 * Accept header names nothing it writes or the method is not GET, POST or HEAD; clients of this API get
 * {@code {"code", "message"}} like every other error, whatever they accept.
 */
public final class JsonErrors {

    private static final ObjectMapper JSON = new ObjectMapper();

    private JsonErrors() {
    }

    /** Replaces the error handlers of the application's servlet context and of the server itself. */
    public static void install(Environment environment) {
        environment.getApplicationContext().setErrorHandler(new InContext());
        environment.lifecycle().addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStarting(LifeCycle event) {
                if (event instanceof Server server) {
                    server.setErrorHandler(new InServer());
                }
            }
        });
    }

    static String body(int code, String message) {
        String text = message == null || message.isBlank() ? HttpStatus.getMessage(code) : message;
        try {
            return JSON.writeValueAsString(new ErrorBody(code, text, List.of()));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write an error body", e);
        }
    }

    /** For requests that reached the servlet context. */
    static final class InContext extends org.eclipse.jetty.ee10.servlet.ErrorHandler {

        @Override
        public boolean errorPageForMethod(String method) {
            return true;
        }

        @Override
        protected void generateResponse(Request request, Response response, int code, String message,
                                        Throwable cause, Callback callback) throws IOException {
            generateAcceptableResponse(request, response, callback, "application/json",
                    List.of(StandardCharsets.UTF_8), code, message, cause);
        }

        @Override
        protected void writeErrorJson(Request request, PrintWriter writer, int code, String message, Throwable cause) {
            writer.write(body(code, message));
        }
    }

    /**
     * For requests Jetty refused while parsing them, which no context sees. Jetty closes the connection after
     * such an answer (what follows the broken part cannot be parsed), so the answer says so: a client that took
     * the connection for reusable lost its next request.
     */
    static final class InServer extends org.eclipse.jetty.server.handler.ErrorHandler {

        @Override
        public boolean errorPageForMethod(String method) {
            return true;
        }

        @Override
        protected void generateResponse(Request request, Response response, int code, String message,
                                        Throwable cause, Callback callback) throws IOException {
            response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
            if (!generateAcceptableResponse(request, response, callback, "application/json",
                    List.of(StandardCharsets.UTF_8), code, message, cause)) {
                callback.succeeded();
            }
        }

        @Override
        protected void writeErrorJson(Request request, PrintWriter writer, int code, String message, Throwable cause) {
            writer.write(body(code, message));
        }
    }
}
