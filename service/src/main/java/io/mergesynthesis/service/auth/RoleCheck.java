package io.mergesynthesis.service.auth;

import io.mergesynthesis.service.api.ErrorBody;
import jakarta.annotation.Priority;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.util.List;

/**
 * Enforces {@code @RolesAllowed} on resource methods (or their class), once the bearer token is authenticated. A
 * caller of the wrong role gets a 403 that names the roles the endpoint is for and the token's own, so that a
 * client learns which token to use instead of reading a bare "not authorized".
 */
public final class RoleCheck implements DynamicFeature {

    @Override
    public void configure(ResourceInfo resource, FeatureContext context) {
        RolesAllowed allowed = resource.getResourceMethod().getAnnotation(RolesAllowed.class);
        if (allowed == null) {
            allowed = resource.getResourceClass().getAnnotation(RolesAllowed.class);
        }
        if (allowed != null) {
            context.register(new Filter(List.of(allowed.value())));
        }
    }

    /** The words of the 403 for a caller of role {@code role} at an endpoint for {@code allowed}. */
    static String refusal(List<String> allowed, String role) {
        String roles = allowed.size() == 1 ? "the " + allowed.get(0) + " role"
                : "the " + String.join(", ", allowed.subList(0, allowed.size() - 1)) + " and "
                        + allowed.get(allowed.size() - 1) + " roles";
        return "this endpoint is for " + roles + "; your token's role is " + role;
    }

    @Priority(Priorities.AUTHORIZATION)
    private static final class Filter implements ContainerRequestFilter {

        private final List<String> allowed;

        Filter(List<String> allowed) {
            this.allowed = allowed;
        }

        @Override
        public void filter(ContainerRequestContext request) {
            SecurityContext security = request.getSecurityContext();
            if (allowed.stream().anyMatch(security::isUserInRole)) {
                return;
            }
            if (!(security.getUserPrincipal() instanceof Caller caller)) {
                // The authentication filter answers a request without a token before this runs.
                request.abortWith(ErrorBody.response(Response.Status.UNAUTHORIZED, "a bearer token is required"));
                return;
            }
            request.abortWith(ErrorBody.response(Response.Status.FORBIDDEN,
                    refusal(allowed, caller.role().wireName())));
        }
    }
}
