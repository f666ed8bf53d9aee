package io.mergesynthesis.service.session;

import io.mergesynthesis.service.auth.Actor;
import io.mergesynthesis.service.auth.Caller;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.db.WebSessionStore;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import java.util.UUID;

/**
 * Server-side sessions of the web inbox, in {@code web_sessions}. The browser holds a random 256-bit session id;
 * the table holds only its SHA-256, so a leaked table opens no session. Every replica reads the same table, and
 * ending a session is one UPDATE that every replica sees on the next request.
 *
 * <p>A session ends {@code idle} after its last use and {@code max} after it opened, whichever comes first. A
 * person's role and org are the provider's word at sign-in; the absolute limit is what makes a person the provider
 * no longer vouches for (left the company, lost the role) sign in again, and be turned away then.
 */
public final class WebSessions {

    /** The defaults of {@code web.sessionIdle} and {@code web.sessionMax}. */
    public static final Duration IDLE = Duration.ofMinutes(30);
    public static final Duration MAX = Duration.ofHours(12);

    private static final SecureRandom RANDOM = new SecureRandom();

    private final ScopedTransactions transactions;
    private final Clock clock;
    private final Duration idle;
    private final Duration max;

    public WebSessions(ScopedTransactions transactions, Clock clock) {
        this(transactions, clock, IDLE, MAX);
    }

    public WebSessions(ScopedTransactions transactions, Clock clock, Duration idle, Duration max) {
        if (idle.isZero() || idle.isNegative() || max.isZero() || max.isNegative()) {
            throw new IllegalArgumentException("web.sessionIdle and web.sessionMax must be longer than zero");
        }
        this.transactions = transactions;
        this.clock = clock;
        this.idle = idle;
        this.max = max;
    }

    /** How long a session lasts at most: the session cookie's lifetime too. */
    public Duration max() {
        return max;
    }

    /** A new session: the secret goes into the cookie and is not kept here. */
    public record Opened(String secret, WebSession session) {
    }

    /** A person whom the identity provider vouched for at sign-in, with the role and org its claims gave. */
    public record Person(String subject, String email, String name, Role role, UUID org) {
    }

    /**
     * A session for {@code caller}, whom the presented {@code token} stands for; empty when that token was
     * revoked or expired since it was looked up.
     */
    public Optional<Opened> open(Caller caller, String token) {
        String secret = randomSecret();
        byte[] hash = sha256(secret);
        Instant now = clock.instant();
        Instant expires = now.plus(max);
        boolean opened = transactions.asTenant(
                handle -> WebSessionStore.insert(handle, hash, sha256(token), now, expires));
        if (!opened) {
            return Optional.empty();
        }
        return Optional.of(new Opened(secret, new WebSession(hash, caller.tokenId(), caller.role(), caller.orgId(),
                null, expires, formKey(secret), caller.actor())));
    }

    /**
     * Records that {@code person} signed in (the people the operator lists) and opens a session for them. The ID
     * token is kept with the session only to be handed back to the provider at sign-out.
     */
    public Opened open(Person person, String idToken) {
        String secret = randomSecret();
        byte[] hash = sha256(secret);
        Instant now = clock.instant();
        Instant expires = now.plus(max);
        transactions.asTenant(handle -> {
            WebSessionStore.recordPerson(handle, person.subject(), person.org(), person.email(), person.name(),
                    person.role().wireName(), now);
            WebSessionStore.insertPerson(handle, hash, person.subject(), person.email(), person.name(),
                    person.role().wireName(), person.org(), idToken, now, expires);
            return null;
        });
        return new Opened(secret, new WebSession(hash, null, person.role(), person.org(), null, expires,
                formKey(secret), Actor.person(person.subject(), person.email(), person.name())));
    }

    /**
     * The live session a cookie stands for: not ended, used within the idle limit, within its absolute limit, and
     * for a token's session its token neither revoked nor expired. Finding it counts as a use.
     */
    public Optional<WebSession> find(String secret) {
        if (secret == null || secret.length() != 43) {
            return Optional.empty();
        }
        byte[] hash = sha256(secret);
        Instant now = clock.instant();
        return transactions.asTenant(handle -> WebSessionStore.use(handle, hash, now, now.minus(idle)))
                .map(row -> new WebSession(hash, row.tokenId(), Role.fromWireName(row.role()).orElseThrow(),
                        row.org(), row.viewingOrg(), row.expiresAt(), formKey(secret),
                        row.personSubject() != null
                                ? Actor.person(row.personSubject(), row.personEmail(), row.personName())
                                : Actor.token(row.tokenId(), row.tokenLabel())));
    }

    /**
     * Signing out: the cookie the browser may still hold opens nothing from now on, on any replica. Answers the
     * ID token of a person's session, for the provider's own sign-out.
     */
    public Optional<String> end(WebSession session) {
        Instant now = clock.instant();
        return transactions.asTenant(handle -> WebSessionStore.end(handle, session.idHash(), now));
    }

    /** The org a platform session looks at (read only); null returns it to the operator pages alone. */
    public void view(WebSession session, UUID org) {
        if (!session.platform()) {
            throw new IllegalArgumentException("only a platform session chooses which org to view");
        }
        transactions.asTenant(handle -> {
            WebSessionStore.view(handle, session.idHash(), org);
            return null;
        });
    }

    /** 32 random bytes, base64url without padding: 43 characters. */
    public static String randomSecret() {
        byte[] random = new byte[32];
        RANDOM.nextBytes(random);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(random);
    }

    /**
     * The anti-forgery value of a session's forms, derived from the session secret: a page of this session can
     * carry it, another site cannot learn it, and nothing more needs storing.
     */
    static String formKey(String secret) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(sha256("form|" + secret));
    }

    static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
