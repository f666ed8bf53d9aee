package io.mergesynthesis.service.web;

import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.auth.TokenStore;
import io.mergesynthesis.service.core.SignedInPerson;
import io.mergesynthesis.service.operator.OrgDirectory;
import io.mergesynthesis.service.operator.SignedInPeople;
import io.mergesynthesis.service.operator.TokenAdmin;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.CookieParam;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * The platform's tokens, from the browser: mint one (role, org, expiry), see every token but its secret, revoke
 * one. A minted token's secret is on the page that answers the form, once: it is in no URL and in no later page.
 * The same store as the {@code token} command, so each change is an event as well.
 */
@Path("/operator/tokens")
@Produces(MediaType.TEXT_HTML)
public final class TokensPageResource {

    /** The newest tokens listed; older ones stay manageable by id from the command line. */
    static final int LISTED = 200;

    /** The lifetimes the form offers, by the value it sends. */
    static final Map<String, Duration> EXPIRIES = Map.of("1h", Duration.ofHours(1), "1d", Duration.ofDays(1),
            "30d", Duration.ofDays(30), "90d", Duration.ofDays(90));

    private final Pages pages;
    private final TokenAdmin tokens;
    private final SignedInPeople people;
    private final OrgDirectory orgs;

    TokensPageResource(Pages pages, TokenAdmin tokens, OrgDirectory orgs, SignedInPeople people) {
        this.people = people;
        this.pages = pages;
        this.tokens = tokens;
        this.orgs = orgs;
    }

    record TokensPage(List<Row> tokens, List<String> roles, Minted minted, String problem, boolean more,
                      List<PersonRow> people) {
        boolean hasTokens() {
            return !tokens.isEmpty();
        }

        boolean hasPeople() {
            return !people.isEmpty();
        }
    }

    /** A person who signed in with the identity provider. */
    record PersonRow(String name, String email, String subject, String role, OrgLabel orgLabel, Moment firstSeen,
                     Moment lastSeen) {
    }

    record Row(String id, String prefix, String label, String role, OrgLabel orgLabel, Moment created, Moment lastUsed,
               Moment expires, String state, boolean active) {
    }

    /** The token just minted, shown on this one answer. */
    record Minted(String secret, String prefix, String role, OrgLabel orgLabel, Moment expires) {
    }

    @GET
    public Response list(@CookieParam(SessionCookies.SESSION) String cookie, @QueryParam("notice") String notice) {
        PlatformAccess access = PlatformAccess.toPage(pages, cookie);
        if (access.refused()) {
            return access.turnedBack();
        }
        return page(200, OperatorNotice.layout("Tokens", notice, access), null, null);
    }

    @POST
    @Path("mint")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Response mint(@CookieParam(SessionCookies.SESSION) String cookie, @FormParam("form_key") String formKey,
                         @FormParam("role") String roleParam, @FormParam("org") String orgParam,
                         @FormParam("expires_in") String expiresParam, @FormParam("label") String labelParam,
                         @Context HttpHeaders headers) {
        PlatformAccess access = PlatformAccess.toForm(pages, cookie, headers, formKey);
        if (access.refused()) {
            return access.turnedBack();
        }
        Layout layout = Layout.of("Tokens", "operator", access.session());
        Optional<Role> role = Role.fromWireName(roleParam);
        if (role.isEmpty()) {
            return page(422, layout, null, "Not minted: choose a role.");
        }
        String orgText = orgParam == null ? "" : orgParam.strip().toLowerCase(Locale.ROOT);
        UUID org = orgText.isEmpty() ? null : CanonicalIds.uuid(orgText);
        if (!orgText.isEmpty() && org == null) {
            return page(422, layout, null, "Not minted: the org must be an org id (a UUID).");
        }
        Duration expiresIn = expiresParam == null || expiresParam.isEmpty() ? null : EXPIRIES.get(expiresParam);
        if (expiresParam != null && !expiresParam.isEmpty() && expiresIn == null) {
            return page(422, layout, null, "Not minted: choose one of the offered lifetimes.");
        }
        String label = labelParam == null || labelParam.isBlank() ? null : labelParam.strip();
        if (label != null && (label.length() > TokenStore.LABEL_LENGTH
                || label.codePoints().anyMatch(Character::isISOControl))) {
            return page(422, layout, null, "Not minted: a label is at most " + TokenStore.LABEL_LENGTH
                    + " characters on one line.");
        }
        TokenStore.MintedToken minted;
        try {
            minted = tokens.mint(access.session().caller(), role.get(), org, expiresIn, label);
        } catch (IllegalArgumentException e) {
            return page(422, layout, null, "Not minted: " + role.get().wireName()
                    + (role.get().boundToOrg() ? " tokens need an org." : " tokens are bound to no org; leave the "
                    + "org empty."));
        }
        Instant now = pages.clock().instant();
        return page(200, layout, new Minted(minted.secret(), minted.prefix(), role.get().wireName(),
                org == null ? null : OrgLabel.of(org, orgs.nameOf(org).orElse(null)),
                Moment.of(minted.expiresAt(), now)), null);
    }

    @POST
    @Path("revoke")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Response revoke(@CookieParam(SessionCookies.SESSION) String cookie, @FormParam("form_key") String formKey,
                           @FormParam("token") String tokenParam, @Context HttpHeaders headers) {
        PlatformAccess access = PlatformAccess.toForm(pages, cookie, headers, formKey);
        if (access.refused()) {
            return access.turnedBack();
        }
        UUID id = CanonicalIds.typed(tokenParam);
        OperatorNotice outcome;
        if (id == null) {
            outcome = OperatorNotice.NO_SUCH_TOKEN;
        } else {
            try {
                outcome = tokens.revoke(access.session().caller(), id) == TokenStore.Revocation.REVOKED
                        ? OperatorNotice.REVOKED : OperatorNotice.ALREADY_REVOKED;
            } catch (IllegalArgumentException e) {
                outcome = OperatorNotice.NO_SUCH_TOKEN;
            }
        }
        return Pages.seeOther("/operator/tokens?notice=" + outcome.code());
    }

    private Response page(int status, Layout layout, Minted minted, String problem) {
        Instant now = pages.clock().instant();
        List<TokenStore.ListedToken> all = tokens.list();
        List<TokenStore.ListedToken> listed = all.size() > LISTED ? all.subList(0, LISTED) : all;
        Map<UUID, String> names = orgs.namesOf(listed.stream().map(TokenStore.ListedToken::orgId)
                .filter(Objects::nonNull).collect(Collectors.toSet()));
        List<Row> rows = listed.stream().map(t -> {
            String state = t.revokedAt() != null ? "revoked"
                    : t.expiresAt() != null && !now.isBefore(t.expiresAt()) ? "expired" : "active";
            return new Row(t.id().toString(), t.prefix() == null ? "-" : t.prefix(), t.label(), t.role().wireName(),
                    t.orgId() == null ? null : OrgLabel.of(t.orgId(), names), Moment.of(t.createdAt(), now),
                    Moment.of(t.lastUsedAt(), now), Moment.of(t.expiresAt(), now), state, "active".equals(state));
        }).toList();
        Layout shown = problem == null ? layout : layout.withProblem(problem);
        List<SignedInPerson> signedIn = people.recent(LISTED);
        Map<UUID, String> orgNames = orgs.namesOf(signedIn.stream().map(SignedInPerson::orgId)
                .filter(Objects::nonNull).collect(Collectors.toSet()));
        List<PersonRow> personRows = signedIn.stream().map(p -> new PersonRow(p.name(), p.email(), p.subject(),
                p.role(), p.orgId() == null ? null : OrgLabel.of(p.orgId(), orgNames), Moment.of(p.firstSeen(), now),
                Moment.of(p.lastSeen(), now))).toList();
        return pages.render(status, "tokens", shown, new TokensPage(rows,
                Arrays.stream(Role.values()).map(Role::wireName).toList(), minted, problem, all.size() > LISTED,
                personRows));
    }
}
