package io.mergesynthesis.service.signin;

import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.session.WebSessions.Person;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Turns the claims of a verified ID token into a person of the console: subject, email and name, the role from
 * {@code roleClaim} (a string or a list of strings) and the org from {@code orgClaim}. A person with no role this
 * service knows, or with an org role and no org, is refused with words that name the claim that is missing, so that
 * whoever runs the identity provider knows what to add.
 *
 * <p>When the role claim names several of our roles, the one that may do most is taken: platform, then org_admin,
 * then org_viewer. Values that are none of ours (a provider's own roles share the claim) are passed over.
 */
public final class ClaimsMapping {

    /** The roles a person may sign in with, strongest first. */
    static final List<Role> PERSON_ROLES = List.of(Role.PLATFORM, Role.ORG_ADMIN, Role.ORG_VIEWER);

    private final String orgClaim;
    private final String roleClaim;

    public ClaimsMapping(String orgClaim, String roleClaim) {
        if (orgClaim == null || orgClaim.isBlank() || roleClaim == null || roleClaim.isBlank()) {
            throw new IllegalArgumentException("the org and role claims need names (OIDC_ORG_CLAIM, OIDC_ROLE_CLAIM)");
        }
        this.orgClaim = orgClaim;
        this.roleClaim = roleClaim;
    }

    /** A person who may sign in, or the reason they may not. */
    public sealed interface Outcome permits Admitted, Refused {
    }

    public record Admitted(Person person) implements Outcome {
    }

    /** {@code claim} is the name of the claim that was missing or unusable; {@code reason} says it in words. */
    public record Refused(String claim, String reason) implements Outcome {
    }

    public Outcome map(Map<String, Object> claims) {
        Object subject = claims.get("sub");
        if (!(subject instanceof String sub) || sub.isEmpty()) {
            return new Refused("sub", "The identity provider's answer names no subject (the claim sub).");
        }
        Object roleValue = claims.get(roleClaim);
        if (roleValue == null) {
            return new Refused(roleClaim, "Your account has no claim " + roleClaim + ", which should name your role "
                    + "here: org_admin, org_viewer or platform. Ask whoever runs your company's sign-in to add it.");
        }
        Optional<Role> role = strongest(roleValue);
        if (role.isEmpty()) {
            return new Refused(roleClaim, "The claim " + roleClaim + " of your account names none of the roles of "
                    + "this console (org_admin, org_viewer or platform). Ask whoever runs your company's sign-in "
                    + "for one of them.");
        }
        UUID org = null;
        if (role.get().boundToOrg()) {
            Object orgValue = claims.get(orgClaim);
            if (!(orgValue instanceof String orgText) || orgText.isBlank()) {
                return new Refused(orgClaim, "Your account has the role " + role.get().wireName() + " but no claim "
                        + orgClaim + " naming your org. Ask whoever runs your company's sign-in to add it.");
            }
            org = orgNamed(orgText);
            if (org == null) {
                return new Refused(orgClaim, "The claim " + orgClaim + " of your account is not an org id (a UUID "
                        + "such as 4f0c3a52-8b1e-4a51-9d53-0c2e9e0d7a11).");
            }
        }
        return new Admitted(new Person(sub, text(claims.get("email")), name(claims), role.get(), org));
    }

    private static Optional<Role> strongest(Object value) {
        List<Role> named = rolesNamed(value);
        return PERSON_ROLES.stream().filter(named::contains).findFirst();
    }

    /**
     * The roles of ours a role claim names, each once: a list of strings, or one string of names separated by
     * spaces or commas. Anything else names none. Shared with {@link MachineTokens}.
     */
    static List<Role> rolesNamed(Object value) {
        Collection<?> values = value instanceof Collection<?> many ? many
                : value instanceof String one ? List.of(one.split("[\\s,]+")) : List.of();
        List<Role> named = new ArrayList<>();
        for (Object v : values) {
            if (v instanceof String text) {
                Role.fromWireName(text.strip()).filter(r -> !named.contains(r)).ifPresent(named::add);
            }
        }
        return named;
    }

    /** The org an org claim names: a UUID in a string, else null. Shared with {@link MachineTokens}. */
    static UUID orgNamed(Object value) {
        return value instanceof String text ? uuid(text.strip()) : null;
    }

    /** The person's name: {@code name}, else given and family names, else the user name they sign in with. */
    private static String name(Map<String, Object> claims) {
        String name = text(claims.get("name"));
        if (name != null) {
            return name;
        }
        String given = text(claims.get("given_name"));
        String family = text(claims.get("family_name"));
        if (given != null || family != null) {
            return ((given == null ? "" : given) + " " + (family == null ? "" : family)).strip();
        }
        return text(claims.get("preferred_username"));
    }

    /** A claim's text, cut to what {@code people} keeps, or null when it is not a non-blank string. */
    private static String text(Object value) {
        if (!(value instanceof String s) || s.isBlank()) {
            return null;
        }
        String clean = s.strip();
        return clean.length() > 200 ? clean.substring(0, 200) : clean;
    }

    private static UUID uuid(String text) {
        try {
            return text.length() == 36 ? UUID.fromString(text) : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
