package io.mergesynthesis.service.signin;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.auth.Role;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Claims to a person, over many generated ID tokens: who is let in, with which role and org, and which claim a
 * refusal names. The generator mixes our roles with a provider's own, strings with lists, good orgs with missing
 * and malformed ones.
 */
class ClaimsMappingTest {

    static final List<String> ROLE_VALUES = List.of("org_admin", "org_viewer", "platform", "offline_access",
            "uma_authorization", "default-roles-acme", "ingest", "siem", "ORG_ADMIN", "admin");
    static final ClaimsMapping DEFAULTS = new ClaimsMapping("org_id", "roles");

    @Test
    void everyGeneratedTokenIsLetInExactlyWhenItNamesOneOfOurRolesAndTheOrgThatRoleNeeds() {
        Random random = new Random(20261128);
        for (int i = 0; i < 5000; i++) {
            Map<String, Object> claims = new HashMap<>();
            claims.put("sub", "subject-" + i);
            List<String> roles = new ArrayList<>();
            int count = random.nextInt(4);
            for (int r = 0; r < count; r++) {
                roles.add(ROLE_VALUES.get(random.nextInt(ROLE_VALUES.size())));
            }
            int shape = random.nextInt(4);
            if (shape == 1) {
                claims.put("roles", roles);
            } else if (shape == 2) {
                claims.put("roles", String.join(" ", roles));
            } else if (shape == 3) {
                claims.put("roles", 42);
            }
            int orgShape = random.nextInt(4);
            UUID org = UUID.randomUUID();
            if (orgShape == 1) {
                claims.put("org_id", org.toString());
            } else if (orgShape == 2) {
                claims.put("org_id", "acme-corp");
            } else if (orgShape == 3) {
                claims.put("org_id", "");
            }

            ClaimsMapping.Outcome outcome = DEFAULTS.map(claims);

            boolean rolesPresent = shape == 1 || shape == 2;
            Role strongest = !rolesPresent ? null : roles.contains("platform") ? Role.PLATFORM
                    : roles.contains("org_admin") ? Role.ORG_ADMIN
                    : roles.contains("org_viewer") ? Role.ORG_VIEWER : null;
            String why = claims.toString();
            if (shape == 0) {
                assertThat(outcome).as(why).isEqualTo(refusedFor("roles", outcome));
            } else if (strongest == null) {
                assertThat(((ClaimsMapping.Refused) outcome).claim()).as(why).isEqualTo("roles");
            } else if (strongest != Role.PLATFORM && orgShape != 1) {
                assertThat(((ClaimsMapping.Refused) outcome).claim()).as(why).isEqualTo("org_id");
            } else {
                var person = ((ClaimsMapping.Admitted) outcome).person();
                assertThat(person.role()).as(why).isEqualTo(strongest);
                assertThat(person.subject()).isEqualTo("subject-" + i);
                assertThat(person.org()).as(why).isEqualTo(strongest == Role.PLATFORM ? null : org);
            }
        }
    }

    private static ClaimsMapping.Outcome refusedFor(String claim, ClaimsMapping.Outcome outcome) {
        assertThat(outcome).isInstanceOf(ClaimsMapping.Refused.class);
        assertThat(((ClaimsMapping.Refused) outcome).claim()).isEqualTo(claim);
        return outcome;
    }

    @Test
    void theRefusalSaysWhichClaimIsMissingInWords() {
        var noRole = (ClaimsMapping.Refused) DEFAULTS.map(Map.of("sub", "s"));
        assertThat(noRole.reason()).contains("no claim roles").contains("org_admin, org_viewer or platform");
        var noOrg = (ClaimsMapping.Refused) DEFAULTS.map(Map.of("sub", "s", "roles", List.of("org_viewer")));
        assertThat(noOrg.reason()).contains("org_viewer").contains("no claim org_id");
        var badOrg = (ClaimsMapping.Refused) DEFAULTS.map(Map.of("sub", "s", "roles", "org_admin",
                "org_id", "acme"));
        assertThat(badOrg.reason()).contains("org_id").contains("not an org id");
    }

    @Test
    void theClaimNamesAreThoseConfigured() {
        ClaimsMapping entra = new ClaimsMapping("tid_org", "groups");
        UUID org = UUID.randomUUID();
        var admitted = (ClaimsMapping.Admitted) entra.map(Map.of("sub", "s", "groups", List.of("org_viewer"),
                "tid_org", org.toString(), "roles", List.of("platform")));
        assertThat(admitted.person().role()).isEqualTo(Role.ORG_VIEWER);
        assertThat(admitted.person().org()).isEqualTo(org);
        var refused = (ClaimsMapping.Refused) entra.map(Map.of("sub", "s", "roles", List.of("org_admin"),
                "org_id", org.toString()));
        assertThat(refused.claim()).isEqualTo("groups");
    }

    @Test
    void theNameIsTheNameClaimElseGivenAndFamilyElseTheUserName() {
        Map<String, Object> base = Map.of("sub", "s", "roles", "platform", "email", "pat@example.com");
        assertThat(name(with(base, "name", "Pat Example", "given_name", "P"))).isEqualTo("Pat Example");
        assertThat(name(with(base, "given_name", "Pat", "family_name", "Example"))).isEqualTo("Pat Example");
        assertThat(name(with(base, "preferred_username", "pat"))).isEqualTo("pat");
        assertThat(name(base)).isNull();
        assertThat(((ClaimsMapping.Admitted) DEFAULTS.map(base)).person().email()).isEqualTo("pat@example.com");
    }

    @Test
    void anOrgThatHasNoRowsYetIsFine() {
        UUID unheardOf = UUID.randomUUID();
        var admitted = (ClaimsMapping.Admitted) DEFAULTS.map(Map.of("sub", "s", "roles", List.of("org_admin"),
                "org_id", unheardOf.toString()));
        assertThat(admitted.person().org()).isEqualTo(unheardOf);
    }

    private static String name(Map<String, Object> claims) {
        return ((ClaimsMapping.Admitted) DEFAULTS.map(claims)).person().name();
    }

    private static Map<String, Object> with(Map<String, Object> base, String... pairs) {
        Map<String, Object> claims = new HashMap<>(base);
        for (int i = 0; i < pairs.length; i += 2) {
            claims.put(pairs[i], pairs[i + 1]);
        }
        return claims;
    }
}
