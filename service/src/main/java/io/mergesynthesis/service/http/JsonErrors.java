package io.mergesynthesis.service.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.core.setup.Environment;
import io.mergesynthesis.service.api.ErrorBody;
import jakarta.ws.rs.core.MediaType;
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

    /**
     * What was wrong with a request Jetty refused while parsing it, in words a client can act on. Jetty's own
     * reason is often the bare status ("Bad Request") with the real one in a cause (a URI it could not decode),
     * or terse ("Illegal character CNTL=0x1"); the answer says which part of the request was at fault.
     */
    static String parseFailure(int code, String message, Throwable cause) {
        String reason = specific(code, message);
        for (Throwable t = cause; reason == null && t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof NumberFormatException && t.getMessage() != null && t.getMessage().startsWith("!hex")) {
                return "malformed request URI: bad percent-encoding (a '%' must be followed by two hexadecimal digits)";
            }
            if (t instanceof IllegalArgumentException && "Bad URI".equals(t.getMessage())) {
                return "malformed request URI: its path cannot be resolved (for example '..' above the root)";
            }
            reason = specific(code, t.getMessage());
        }
        if (reason == null) {
            return switch (code) {
                case HttpStatus.URI_TOO_LONG_414 -> "the request line is too long: shorten the URI or its query";
                case HttpStatus.REQUEST_HEADER_FIELDS_TOO_LARGE_431 -> "the request's headers are too large";
                case HttpStatus.UPGRADE_REQUIRED_426 -> "this server speaks HTTP/1.1 here: send HTTP/1.1 requests";
                default -> "malformed request: " + HttpStatus.getMessage(code);
            };
        }
        if (reason.startsWith("Illegal character")) {
            return "malformed request: an illegal character in the request line or a header (" + reason + ")";
        }
        if (reason.startsWith("Ambiguous URI")) {
            return "malformed request URI: " + reason.toLowerCase(java.util.Locale.ROOT)
                    + " (an encoded '/', '.' or '%' in a path is refused)";
        }
        if (reason.equals("Bad UTF-8 encoding")) {
            return "malformed request URI: a percent-encoded path segment is not valid UTF-8 (an encoded surrogate "
                    + "such as %ED%A0%80 has no UTF-8 form)";
        }
        if (reason.startsWith("No closing ']'")) {
            return "malformed request URI: " + reason;
        }
        if (reason.equals("Line Folding not supported")) {
            return "malformed request: a folded header line (one that starts with a space or a tab); "
                    + "write each header on one line";
        }
        if (reason.equals("Transfer-Encoding and Content-Length")) {
            return "malformed request: both Transfer-Encoding and Content-Length are set; send one of them";
        }
        return code == HttpStatus.BAD_REQUEST_400 ? "malformed request: " + reason : reason;
    }

    /** {@code message} unless it is empty or the bare name of the status. */
    private static String specific(int code, String message) {
        String text = message != null && message.startsWith(code + ": ") ? message.substring(5) : message;
        return text == null || text.isBlank() || text.equals("null") || text.equals(HttpStatus.getMessage(code))
                ? null : text;
    }

    /**
     * What was wrong with a request the servlet layer refused with a bare 400: in practice a Content-Type or an
     * Accept header that is not a media type. Null when neither is at fault.
     */
    static String badHeader(Request request) {
        String contentType = request.getHeaders().get(HttpHeader.CONTENT_TYPE);
        if (contentType != null && !isMediaTypes(contentType, false)) {
            return "the Content-Type header is not a media type: '" + printable(contentType)
                    + "' (send application/json)";
        }
        String accept = request.getHeaders().get(HttpHeader.ACCEPT);
        if (accept != null && !isMediaTypes(accept, true)) {
            return "the Accept header is not a list of media types: '" + printable(accept)
                    + "' (send application/json, or leave it out)";
        }
        return null;
    }

    private static boolean isMediaTypes(String value, boolean list) {
        try {
            for (String one : list ? value.split(",") : new String[] {value}) {
                MediaType.valueOf(one.trim());
            }
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** A header value as it can be echoed: printable ASCII only, and not too long. */
    private static String printable(String value) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < value.length() && out.length() < 80; i++) {
            char c = value.charAt(i);
            out.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return value.length() > 80 ? out + "..." : out.toString();
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
            String said = message;
            if (code == HttpStatus.BAD_REQUEST_400 && specific(code, message) == null) {
                String header = badHeader(request);
                said = header != null ? header : parseFailure(code, message, cause);
            }
            writer.write(body(code, said));
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
            writer.write(body(code, code >= 400 && code < 500 ? parseFailure(code, message, cause) : message));
        }
    }
}
