package io.mergesynthesis.drills;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * One generated request of the hostile-input drill: what goes on the wire, and who it claims to be. Either a
 * request {@code java.net.http} can send ({@code raw} null: method, target, headers, body), or {@code raw} bytes
 * sent as they are over a socket. Method and target are kept for raw probes too, to count them per endpoint.
 *
 * @param index  the probe's number in the run; with the seed it regenerates the same request
 * @param kind   the generator that made it, for the report
 * @param chunked send the body with chunked transfer coding instead of a Content-Length
 */
record Probe(int index, String kind, Caller caller, String method, String target, List<Header> headers,
             byte[] body, boolean chunked, byte[] raw) {

    record Header(String name, String value) {
    }

    /**
     * Who the probe says it is. {@code org} is the org whose token it carries (null for platform or no token);
     * {@code authentic} is false for forged, revoked and missing tokens, which must get nothing of any org.
     */
    record Caller(String label, String role, UUID org, boolean authentic) {

        static Caller nobody(String label) {
            return new Caller(label, null, null, false);
        }

        boolean platform() {
            return authentic && "platform".equals(role);
        }
    }

    /** The endpoints the API documents, with the roles allowed on each. */
    enum Endpoint {
        INGEST("POST /v1/conflicts", Set.of("ingest", "platform")),
        LIST("GET /v1/conflicts", Set.of("org_admin")),
        GET_ONE("GET /v1/conflicts/{id}", Set.of("org_admin")),
        ACKNOWLEDGE("POST /v1/conflicts/{id}/acknowledge", Set.of("org_admin")),
        RESOLVE("POST /v1/conflicts/{id}/resolve", Set.of("org_admin")),
        EVENTS("GET /v1/events", Set.of("siem", "platform")),
        OPENAPI("GET /v1/openapi.yaml", null),
        OTHER("unknown path or method", Set.of());

        final String label;
        /** Null: public. */
        final Set<String> roles;

        Endpoint(String label, Set<String> roles) {
            this.label = label;
            this.roles = roles;
        }
    }

    String path() {
        int query = target.indexOf('?');
        return query < 0 ? target : target.substring(0, query);
    }

    /** The documented endpoint this request addresses, judged by method and path as the probe wrote them. */
    Endpoint endpoint() {
        String path = path();
        String[] parts = path.split("/", -1);
        boolean post = method.equals("POST");
        // HEAD is GET without the body, with the same access rules.
        boolean get = method.equals("GET") || method.equals("HEAD");
        if (path.equals("/v1/conflicts")) {
            return post ? Endpoint.INGEST : get ? Endpoint.LIST : Endpoint.OTHER;
        }
        if (parts.length == 4 && path.startsWith("/v1/conflicts/")) {
            return get ? Endpoint.GET_ONE : Endpoint.OTHER;
        }
        if (parts.length == 5 && path.startsWith("/v1/conflicts/") && post) {
            return switch (parts[4]) {
                case "acknowledge" -> Endpoint.ACKNOWLEDGE;
                case "resolve" -> Endpoint.RESOLVE;
                default -> Endpoint.OTHER;
            };
        }
        if (path.equals("/v1/events") && get) {
            return Endpoint.EVENTS;
        }
        if (path.equals("/v1/openapi.yaml") && get) {
            return Endpoint.OPENAPI;
        }
        return Endpoint.OTHER;
    }

    /** Everything the probe sends, as text: what an answer may echo without leaking anything. */
    String wireText() {
        if (raw != null) {
            return new String(raw, StandardCharsets.UTF_8);
        }
        StringBuilder text = new StringBuilder(method).append(' ').append(target).append('\n');
        headers.forEach(h -> text.append(h.name()).append(": ").append(h.value()).append('\n'));
        if (body != null) {
            text.append(new String(body, StandardCharsets.UTF_8));
        }
        return text.toString();
    }

    /** A line for the report: enough to recognise the request, cut to a readable length. */
    String describe() {
        if (raw != null) {
            return "#" + index + " " + kind + " as " + caller.label() + ": raw " + RawHttp.printable(raw, 300);
        }
        StringBuilder how = new StringBuilder(method).append(' ').append(shorten(target));
        headers.forEach(h -> how.append(" [").append(h.name()).append(": ").append(shorten(h.value())).append(']'));
        if (body != null) {
            how.append(chunked ? " chunked" : "").append(" body ").append(RawHttp.printable(body, 160));
        }
        return "#" + index + " " + kind + " as " + caller.label() + ": " + how;
    }

    /** A request that is no request at all (blank lines, TLS, HTTP/2 preface): the server may just hang up. */
    boolean mayGoUnanswered() {
        return kind.equals("raw/garbage");
    }

    private static String shorten(String text) {
        return text.length() <= 120 ? text : text.substring(0, 120) + "...(" + text.length() + " chars)";
    }
}
