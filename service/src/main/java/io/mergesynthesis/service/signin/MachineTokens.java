package io.mergesynthesis.service.signin;

import io.mergesynthesis.service.auth.Actor;
import io.mergesynthesis.service.auth.Caller;
import io.mergesynthesis.service.auth.Role;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;

/**
 * Machines (a policy engine reporting conflicts, a SIEM pipeline) that present an access token of the company's
 * identity provider instead of one of our tokens, obtained with the client credentials grant. The token must be
 * signed by the issuer, be meant for {@code web.oidc.machineAudience} and name exactly one machine role
 * ({@code ingest} or {@code siem}) in the role claim and an org in the org claim. It acts as the machine's client,
 * named by its subject and client id ({@code azp}) in whatever it records.
 */
public final class MachineTokens implements Function<String, Optional<Caller>> {

    static final List<Role> MACHINE_ROLES = List.of(Role.INGEST, Role.SIEM);

    private final IdentityProvider provider;
    private final String audience;
    private final String orgClaim;
    private final String roleClaim;

    public MachineTokens(IdentityProvider provider, String audience, String orgClaim, String roleClaim) {
        this.provider = provider;
        this.audience = audience;
        this.orgClaim = orgClaim;
        this.roleClaim = roleClaim;
    }

    /** The caller an access token stands for; empty when it is not one of this issuer's for us, or names no role. */
    @Override
    public Optional<Caller> apply(String token) {
        if (token == null || token.length() > 16_384 || token.chars().filter(c -> c == '.').count() != 2) {
            return Optional.empty();
        }
        Map<String, Object> claims;
        try {
            claims = provider.accessTokenClaims(token, audience).orElse(null);
        } catch (IdentityProvider.ProviderUnavailable e) {
            return Optional.empty();
        }
        if (claims == null) {
            return Optional.empty();
        }
        List<Role> roles = ClaimsMapping.rolesNamed(claims.get(roleClaim)).stream()
                .filter(MACHINE_ROLES::contains).toList();
        UUID orgId = ClaimsMapping.orgNamed(claims.get(orgClaim));
        if (roles.size() != 1 || orgId == null) {
            return Optional.empty();
        }
        String subject = (String) claims.get("sub");
        Object client = claims.get("azp");
        return Optional.of(new Caller(null, roles.get(0), orgId,
                Actor.person(subject, null, client instanceof String id ? "client " + id : "client " + subject)));
    }
}
