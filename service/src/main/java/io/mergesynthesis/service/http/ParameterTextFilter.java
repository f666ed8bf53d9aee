package io.mergesynthesis.service.http;

import io.mergesynthesis.service.api.ErrorBody;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.Response;
import java.net.URI;

/**
 * Refuses, with 400 naming the part, a query parameter or a path segment that holds a NUL or is not UTF-8 (an
 * encoded lone surrogate), on every page and API endpoint alike, before any resource or the database sees it.
 * Form fields and JSON bodies are checked when they are read ({@link BodyTextCheck}).
 */
@PreMatching
@Priority(Priorities.AUTHENTICATION - 200)
public final class ParameterTextFilter implements ContainerRequestFilter {

    @Override
    public void filter(ContainerRequestContext request) {
        URI uri = request.getUriInfo().getRequestUri();
        String problem = problem(uri.getRawPath(), uri.getRawQuery());
        if (problem != null) {
            request.abortWith(ErrorBody.response(Response.Status.BAD_REQUEST, problem + "; nothing was done"));
        }
    }

    /** What is wrong with the raw path or query, naming the parameter or segment, or null. */
    static String problem(String rawPath, String rawQuery) {
        if (rawPath != null) {
            for (String segment : rawPath.split("/")) {
                String problem = EncodedText.problem(segment, false);
                if (problem != null) {
                    return "the path segment '" + printable(segment) + "' " + problem;
                }
            }
        }
        if (rawQuery != null) {
            for (String pair : rawQuery.split("&")) {
                int equals = pair.indexOf('=');
                String name = equals < 0 ? pair : pair.substring(0, equals);
                String value = equals < 0 ? "" : pair.substring(equals + 1);
                String nameProblem = EncodedText.problem(name, true);
                if (nameProblem != null) {
                    return "a query parameter's name '" + printable(name) + "' " + nameProblem;
                }
                String valueProblem = EncodedText.problem(value, true);
                if (valueProblem != null) {
                    return "query parameter " + printable(name) + " " + valueProblem;
                }
            }
        }
        return null;
    }

    /** Raw (still percent-encoded) text as it can be echoed: printable ASCII, not too long. */
    static String printable(String raw) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < raw.length() && out.length() < 60; i++) {
            char c = raw.charAt(i);
            out.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return raw.length() > 60 ? out + "..." : out.toString();
    }
}
