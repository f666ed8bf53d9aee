package io.mergesynthesis.service.health;

import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * {@code /ready} on the admin port: whether this replica can serve the API, which is whether it reaches its
 * database. A load balancer's readiness probe asks this, not {@code /healthcheck}: a provider's open circuit, a
 * refused key or a dead worker thread leaves the API fully able to answer, and taking every replica out of
 * service together for a provider's outage would turn a slower inbox into no inbox at all (docs/adr/0044).
 */
public final class ReadinessServlet extends HttpServlet {

    /** The check Dropwizard registers for the database pool. */
    public static final String DATABASE = "postgresql";

    /** The checks readiness is made of. */
    static final List<String> CHECKS = List.of(DATABASE);

    private final transient HealthCheckRegistry checks;

    public ReadinessServlet(HealthCheckRegistry checks) {
        this.checks = checks;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        StringBuilder body = new StringBuilder("{");
        boolean ready = true;
        for (String name : CHECKS) {
            HealthCheck.Result result = checks.getNames().contains(name) ? checks.runHealthCheck(name)
                    : HealthCheck.Result.unhealthy("the check is not registered");
            ready &= result.isHealthy();
            body.append(body.length() > 1 ? "," : "").append('"').append(name).append("\":{\"healthy\":")
                    .append(result.isHealthy()).append('}');
        }
        body.append(",\"ready\":").append(ready).append('}');
        response.setStatus(ready ? HttpServletResponse.SC_OK : HttpServletResponse.SC_SERVICE_UNAVAILABLE);
        response.setContentType("application/json");
        response.setHeader("Cache-Control", "must-revalidate,no-cache,no-store");
        response.getOutputStream().write(body.toString().getBytes(StandardCharsets.UTF_8));
    }
}
