package io.mergesynthesis.service.session;

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
 */
public final class WebSessions {

    /** How long a session lasts from sign-in, whatever the activity: a working day, then paste the token again. */
    public static final Duration LIFETIME = Duration.ofHours(10);

    private static final SecureRandom RANDOM = new SecureRandom();

    private final ScopedTransactions transactions;
    private final Clock clock;

    public WebSessions(ScopedTransactions transactions, Clock clock) {
        this.transactions = transactions;
        this.clock = clock;
    }

    /** A new session: the secret goes into the cookie and is not kept here. */
    public record Opened(String secret, WebSession session) {
    }

    /**
     * A session for {@code caller}, whom the presented {@code token} stands for; empty when that token was
     * revoked or expired since it was looked up.
     */
    public Optional<Opened> open(Caller caller, String token) {
        String secret = randomSecret();
        byte[] hash = sha256(secret);
        Instant now = clock.instant();
        Instant expires = now.plus(LIFETIME);
        boolean opened = transactions.asTenant(
                handle -> WebSessionStore.insert(handle, hash, sha256(token), now, expires));
        if (!opened) {
            return Optional.empty();
        }
        return Optional.of(new Opened(secret, new WebSession(hash, caller.tokenId(), caller.role(), caller.orgId(),
                null, expires, formKey(secret))));
    }

    /** The live session a cookie stands for: not ended, not expired, and its token neither revoked nor expired. */
    public Optional<WebSession> find(String secret) {
        if (secret == null || secret.length() != 43) {
            return Optional.empty();
        }
        byte[] hash = sha256(secret);
        Instant now = clock.instant();
        return transactions.asTenant(handle -> WebSessionStore.findLive(handle, hash, now))
                .map(row -> new WebSession(hash, row.tokenId(), Role.fromWireName(row.role()).orElseThrow(),
                        row.tokenOrg(), row.viewingOrg(), row.expiresAt(), formKey(secret)));
    }

    /** Signing out: the cookie the browser may still hold opens nothing from now on, on any replica. */
    public void end(WebSession session) {
        Instant now = clock.instant();
        transactions.asTenant(handle -> {
            WebSessionStore.end(handle, session.idHash(), now);
            return null;
        });
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
