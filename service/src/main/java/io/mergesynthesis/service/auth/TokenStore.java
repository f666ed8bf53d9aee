package io.mergesynthesis.service.auth;

import io.mergesynthesis.service.db.ScopedTransactions;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * Mints bearer tokens and looks them up. Only the SHA-256 of a token is stored: a leaked table holds nothing
 * that can be presented as a credential.
 */
public final class TokenStore {

    /** Makes tokens recognisable to secret scanners and to people reading logs. */
    static final String PREFIX = "msk_";

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Jdbi jdbi;
    private final ScopedTransactions transactions;

    public TokenStore(ScopedTransactions transactions) {
        this.transactions = transactions;
        this.jdbi = transactions.jdbi();
    }

    /** A freshly minted token: the secret is shown once and never stored. */
    public record MintedToken(UUID id, String secret) {
    }

    /**
     * Stores a new token for {@code role} (and {@code orgId}, required for every role but platform).
     * Runs as the login role: the service roles may only read tokens.
     */
    public MintedToken mint(Role role, UUID orgId) {
        if (role.boundToOrg() && orgId == null) {
            throw new IllegalArgumentException("a " + role.wireName() + " token needs --org ORG_ID");
        }
        if (!role.boundToOrg() && orgId != null) {
            throw new IllegalArgumentException("a platform token is not bound to an org; drop --org");
        }
        byte[] random = new byte[32];
        RANDOM.nextBytes(random);
        String secret = PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        UUID id = UUID.randomUUID();
        jdbi.useHandle(handle -> handle.createUpdate(
                        "INSERT INTO api_tokens (id, token_sha256, role, org_id) VALUES (:id, :hash, :role, :org)")
                .bind("id", id)
                .bind("hash", sha256(secret))
                .bind("role", role.wireName())
                .bind("org", orgId)
                .execute());
        return new MintedToken(id, secret);
    }

    /** The caller a presented token stands for, if it is known and not revoked. */
    public Optional<Caller> find(String presented) {
        if (presented == null || !presented.startsWith(PREFIX) || presented.length() > 128) {
            return Optional.empty();
        }
        byte[] hash = sha256(presented);
        return transactions.asTenant(handle -> handle.createQuery(
                        "SELECT id, role, org_id FROM api_tokens WHERE token_sha256 = :hash AND revoked_at IS NULL")
                .bind("hash", hash)
                .map((rs, ctx) -> new Caller(
                        rs.getObject("id", UUID.class),
                        Role.fromWireName(rs.getString("role")).orElseThrow(),
                        rs.getObject("org_id", UUID.class)))
                .findOne());
    }

    static byte[] sha256(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
