package io.mergesynthesis.service.web;

import io.mergesynthesis.service.auth.Caller;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.db.ScopedTransactions;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.sql.Timestamp;
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

    public Opened open(Caller caller) {
        String secret = randomSecret();
        byte[] hash = sha256(secret);
        Instant now = clock.instant();
        Instant expires = now.plus(LIFETIME);
        transactions.asTenant(handle -> handle.createUpdate("""
                        INSERT INTO web_sessions (id_sha256, token_id, created_at, expires_at)
                        VALUES (:hash, :token, :now, :expires)""")
                .bind("hash", hash)
                .bind("token", caller.tokenId())
                .bind("now", Timestamp.from(now))
                .bind("expires", Timestamp.from(expires))
                .execute());
        return new Opened(secret, new WebSession(hash, caller.tokenId(), caller.role(), caller.orgId(), null, expires,
                formKey(secret)));
    }

    /** The live session a cookie stands for: not ended, not expired, and its token neither revoked nor expired. */
    public Optional<WebSession> find(String secret) {
        if (secret == null || secret.length() != 43) {
            return Optional.empty();
        }
        byte[] hash = sha256(secret);
        return transactions.asTenant(handle -> handle.createQuery("""
                        SELECT s.token_id, t.role, t.org_id, s.viewing_org_id, s.expires_at
                          FROM web_sessions s JOIN api_tokens t ON t.id = s.token_id
                         WHERE s.id_sha256 = :hash AND s.ended_at IS NULL AND s.expires_at > :now
                           AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > :now)""")
                .bind("hash", hash)
                .bind("now", Timestamp.from(clock.instant()))
                .map((rs, ctx) -> new WebSession(hash, rs.getObject("token_id", UUID.class),
                        Role.fromWireName(rs.getString("role")).orElseThrow(), rs.getObject("org_id", UUID.class),
                        rs.getObject("viewing_org_id", UUID.class), rs.getTimestamp("expires_at").toInstant(),
                        formKey(secret)))
                .findOne());
    }

    /** Signing out: the cookie the browser may still hold opens nothing from now on, on any replica. */
    public void end(WebSession session) {
        transactions.asTenant(handle -> handle.createUpdate(
                        "UPDATE web_sessions SET ended_at = :now WHERE id_sha256 = :hash AND ended_at IS NULL")
                .bind("now", Timestamp.from(clock.instant()))
                .bind("hash", session.idHash())
                .execute());
    }

    /** The org a platform session looks at (read only); null returns it to the operator pages alone. */
    public void view(WebSession session, UUID org) {
        if (!session.platform()) {
            throw new IllegalArgumentException("only a platform session chooses which org to view");
        }
        transactions.asTenant(handle -> handle.createUpdate(
                        "UPDATE web_sessions SET viewing_org_id = :org WHERE id_sha256 = :hash")
                .bind("org", org)
                .bind("hash", session.idHash())
                .execute());
    }

    /** 32 random bytes, base64url without padding: 43 characters. */
    static String randomSecret() {
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
