package io.mergesynthesis.service.admin;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Optional;

/**
 * Keeps the admin port's tools shut. A task can raise every logger to TRACE or run the garbage collector, and
 * {@code /threads} and {@code /pprof} show the server's insides; the admin port is often bound to every
 * interface in a container. So they answer 404 until a token is configured, and 401 to a request without it.
 * {@code /healthcheck}, {@code /ping} and {@code /metrics} stay open for probes and scrapers.
 */
public final class AdminToolsGuard implements Filter {

    /** Path prefixes of the guarded tools, as the admin servlets see them once the container has normalised them. */
    static final List<String> GUARDED = List.of("/tasks", "/threads", "/pprof");

    private static final String SWITCH = "set adminTools.tokenSha256 (ADMIN_TOOLS_TOKEN_SHA256) to the SHA-256 "
            + "of a token of your choosing to turn /tasks, /threads and /pprof on";

    private final Optional<byte[]> expectedHash;

    AdminToolsGuard(Optional<byte[]> expectedHash) {
        this.expectedHash = expectedHash.map(byte[]::clone);
    }

    /** Whether the tools answer at all on this server. */
    public boolean enabled() {
        return expectedHash.isPresent();
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest http = (HttpServletRequest) request;
        HttpServletResponse answer = (HttpServletResponse) response;
        if (!guarded(path(http))) {
            chain.doFilter(request, response);
        } else if (expectedHash.isEmpty()) {
            refuse(answer, HttpServletResponse.SC_NOT_FOUND, "the admin tools are off on this server: " + SWITCH);
        } else if (carriesToken(http.getHeader("Authorization"))) {
            chain.doFilter(request, response);
        } else {
            answer.setHeader("WWW-Authenticate", "Bearer realm=\"merge-synthesis-admin\"");
            refuse(answer, HttpServletResponse.SC_UNAUTHORIZED,
                    "the admin tools need \"Authorization: Bearer <admin tools token>\", the token whose SHA-256 "
                            + "is adminTools.tokenSha256");
        }
    }

    private static String path(HttpServletRequest request) {
        String servletPath = request.getServletPath() == null ? "" : request.getServletPath();
        String pathInfo = request.getPathInfo() == null ? "" : request.getPathInfo();
        return servletPath + pathInfo;
    }

    static boolean guarded(String path) {
        return GUARDED.stream().anyMatch(prefix -> path.equals(prefix) || path.startsWith(prefix + "/"));
    }

    private boolean carriesToken(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return false;
        }
        byte[] presented = sha256(authorization.substring(7).trim());
        // Constant time, so that the answer's timing says nothing about how much of the token was right.
        return MessageDigest.isEqual(presented, expectedHash.orElseThrow());
    }

    static byte[] sha256(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    private static void refuse(HttpServletResponse response, int status, String message) throws IOException {
        response.setStatus(status);
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        response.getWriter().write("{\"code\":" + status + ",\"message\":\"" + message.replace("\"", "\\\"")
                + "\"}");
    }
}
