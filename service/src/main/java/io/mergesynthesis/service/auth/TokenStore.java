package io.mergesynthesis.service.auth;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.service.db.EventLog;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.db.SqlFiles;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * Mints bearer tokens, looks them up, lists and revokes them: the one place that reads and writes
 * {@code api_tokens}. Only the SHA-256 of a token is stored: a leaked table holds nothing that can be presented
 * as a credential. Next to it, a short prefix of the secret (see {@link #PREFIX_LENGTH}) names the token for
 * the people who manage it.
 */
public final class TokenStore {

    /** Makes tokens recognisable to secret scanners and to people reading logs. */
    static final String PREFIX = "msk_";
    /** {@code msk_} and 8 characters (48 of the 256 random bits): enough to tell tokens apart, not to guess one. */
    public static final int PREFIX_LENGTH = PREFIX.length() + 8;

    private static final SecureRandom RANDOM = new SecureRandom();

    private static final String MINT = SqlFiles.of(TokenStore.class, "mint");
    private static final String LOOK_UP = SqlFiles.of(TokenStore.class, "look_up");
    private static final String RECORD_USE = SqlFiles.of(TokenStore.class, "record_use");
    private static final String LIST = SqlFiles.of(TokenStore.class, "list");
    private static final String BY_ID = SqlFiles.of(TokenStore.class, "by_id");
    private static final String BY_PREFIX = SqlFiles.of(TokenStore.class, "by_prefix");
    private static final String REVOKE = SqlFiles.of(TokenStore.class, "revoke");

    private final Jdbi jdbi;
    private final ScopedTransactions transactions;

    public TokenStore(ScopedTransactions transactions) {
        this.transactions = transactions;
        this.jdbi = transactions.jdbi();
    }

    /** A freshly minted token: the secret is shown once and never stored. */
    public record MintedToken(UUID id, String prefix, String secret, Instant expiresAt) {
    }

    /** A token that may be used now, as a look-up finds it; {@code expiresAt} is null when it never expires. */
    public record ActiveToken(Caller caller, Instant expiresAt) {
        public boolean expiredAt(Instant now) {
            return expiresAt != null && !now.isBefore(expiresAt);
        }
    }

    /** One row of {@code token list}: everything but the secret and its hash. */
    public record ListedToken(UUID id, String prefix, String label, Role role, UUID orgId, Instant createdAt,
                              Instant expiresAt, Instant lastUsedAt, Instant revokedAt) {
    }

    /** The longest label a token may have. */
    public static final int LABEL_LENGTH = 100;

    /** Stores a token that never expires. */
    public MintedToken mint(Role role, UUID orgId) {
        return mint(role, orgId, null);
    }

    /**
     * Stores a new token for {@code role} (and {@code orgId}, required for every role but platform), valid for
     * {@code expiresIn} from now, or for good when that is null. Runs as the login role: the service roles may
     * only look a token up by its hash and record its use.
     */
    public MintedToken mint(Role role, UUID orgId, Duration expiresIn) {
        return mint(role, orgId, expiresIn, null);
    }

    /**
     * As {@link #mint(Role, UUID, Duration)}, by {@code by} (null for the command line), whose name the
     * {@code token_minted} event written with the token carries.
     */
    public MintedToken mint(Role role, UUID orgId, Duration expiresIn, Caller by) {
        return mint(role, orgId, expiresIn, null, by);
    }

    /**
     * As {@link #mint(Role, UUID, Duration, Caller)}, named {@code label} (null for none): the name people know the
     * token by, shown in the token list and recorded with every action the token makes.
     */
    public MintedToken mint(Role role, UUID orgId, Duration expiresIn, String label, Caller by) {
        String named = label == null ? null : label.strip();
        if (named != null && (named.isEmpty() || named.length() > LABEL_LENGTH
                || named.codePoints().anyMatch(Character::isISOControl))) {
            throw new IllegalArgumentException("--label must be 1 to " + LABEL_LENGTH
                    + " characters with no control characters");
        }
        if (role.boundToOrg() && orgId == null) {
            throw new IllegalArgumentException("a " + role.wireName() + " token needs --org ORG_ID");
        }
        if (!role.boundToOrg() && orgId != null) {
            throw new IllegalArgumentException("a platform token is not bound to an org; drop --org");
        }
        if (expiresIn != null && (expiresIn.isZero() || expiresIn.isNegative())) {
            throw new IllegalArgumentException("--expires-in must be longer than zero, got " + expiresIn);
        }
        byte[] random = new byte[32];
        RANDOM.nextBytes(random);
        String secret = PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        UUID id = UUID.randomUUID();
        String prefix = secret.substring(0, PREFIX_LENGTH);
        return jdbi.inTransaction(handle -> {
            Instant expiresAt = handle.createQuery(MINT)
                    .bind("id", id)
                    .bind("hash", sha256(secret))
                    .bind("role", role.wireName())
                    .bind("org", orgId)
                    .bind("prefix", prefix)
                    .bind("label", named)
                    .bind("seconds", expiresIn == null ? null : (Double) (expiresIn.toMillis() / 1000.0))
                    .mapTo(OffsetDateTime.class)
                    .findOne()
                    .map(OffsetDateTime::toInstant)
                    .orElse(null);
            ObjectNode details = TokenEvents.details(id, prefix, named, role, by);
            if (expiresAt != null) {
                details.put("expires_at", expiresAt.toString());
            }
            EventLog.appendPlatformChange(handle, orgId, EventLog.EventType.TOKEN_MINTED, details.toString());
            return new MintedToken(id, prefix, secret, expiresAt);
        });
    }

    /** The caller a presented token stands for, if it is known, not revoked and not expired. */
    public Optional<Caller> find(String presented) {
        return wellFormed(presented) ? lookUp(sha256(presented)).map(ActiveToken::caller) : Optional.empty();
    }

    /** Whether {@code presented} could be a token at all; anything else is refused without a query. */
    static boolean wellFormed(String presented) {
        return presented != null && presented.startsWith(PREFIX) && presented.length() <= 128;
    }

    /**
     * The token whose hash is {@code hash}, if it may be used now. The service roles may not read
     * {@code api_tokens}; they ask a function of the schema's owner about this one hash (schema 22). Records the use when the last recorded one is
     * a minute old or more: at most one write per token a minute, however busy its caller (with several
     * replicas, rarely two).
     */
    public Optional<ActiveToken> lookUp(byte[] hash) {
        return transactions.asTenant(handle -> {
            Optional<Found> found = handle.createQuery(LOOK_UP)
                    .bind("hash", hash)
                    .map((rs, ctx) -> new Found(new ActiveToken(new Caller(
                            rs.getObject("id", UUID.class),
                            Role.fromWireName(rs.getString("role")).orElseThrow(),
                            rs.getObject("org_id", UUID.class),
                            Actor.token(rs.getObject("id", UUID.class), rs.getString("label"))),
                            instant(rs.getObject("expires_at", OffsetDateTime.class))),
                            rs.getBoolean("use_is_old")))
                    .findOne();
            if (found.isPresent() && found.get().useIsOld()) {
                handle.createQuery(RECORD_USE).bind("hash", hash).mapTo(Boolean.class).one();
            }
            return found.map(Found::token);
        });
    }

    private record Found(ActiveToken token, boolean useIsOld) {
    }

    /** Every token, newest first, revoked and expired ones included. */
    public List<ListedToken> list() {
        return jdbi.withHandle(handle -> handle.createQuery(LIST)
                .map((rs, ctx) -> new ListedToken(
                        rs.getObject("id", UUID.class),
                        rs.getString("prefix"),
                        rs.getString("label"),
                        Role.fromWireName(rs.getString("role")).orElseThrow(),
                        rs.getObject("org_id", UUID.class),
                        instant(rs.getObject("created_at", OffsetDateTime.class)),
                        instant(rs.getObject("expires_at", OffsetDateTime.class)),
                        instant(rs.getObject("last_used_at", OffsetDateTime.class)),
                        instant(rs.getObject("revoked_at", OffsetDateTime.class))))
                .list());
    }

    /** What {@link #revoke} did. */
    public enum Revocation {
        REVOKED, ALREADY_REVOKED
    }

    /**
     * Revokes the one token {@code which} names: its id (a UUID) or its prefix as {@code token list} shows it.
     * Refuses, changing nothing, when it names no token or more than one.
     */
    public Revocation revoke(String which) {
        return revoke(which, null);
    }

    /** As {@link #revoke(String)}, by {@code by} (null for the command line), named in the {@code token_revoked} event. */
    public Revocation revoke(String which, Caller by) {
        String key = which == null ? "" : which.trim();
        return jdbi.inTransaction(handle -> {
            UUID id = asUuid(key);
            List<UUID> matching = id != null
                    ? handle.createQuery(BY_ID).bind("id", id)
                            .mapTo(UUID.class).list()
                    : handle.createQuery(BY_PREFIX).bind("prefix", key)
                            .mapTo(UUID.class).list();
            if (matching.isEmpty()) {
                throw new IllegalArgumentException("no token has the id or prefix " + key
                        + " (token list shows both)");
            }
            if (matching.size() > 1) {
                throw new IllegalArgumentException(matching.size() + " tokens have the prefix " + key
                        + "; revoke by id instead (token list shows it)");
            }
            UUID revoked = matching.get(0);
            Optional<Revoked> changed = handle.createQuery(REVOKE)
                    .bind("id", revoked)
                    .map((rs, ctx) -> new Revoked(rs.getObject("org_id", UUID.class), rs.getString("prefix"),
                            rs.getString("label"), Role.fromWireName(rs.getString("role")).orElseThrow()))
                    .findOne();
            if (changed.isEmpty()) {
                return Revocation.ALREADY_REVOKED;
            }
            EventLog.appendPlatformChange(handle, changed.get().org(), EventLog.EventType.TOKEN_REVOKED,
                    TokenEvents.details(revoked, changed.get().prefix(), changed.get().label(),
                            changed.get().role(), by).toString());
            return Revocation.REVOKED;
        });
    }

    private record Revoked(UUID org, String prefix, String label, Role role) {
    }

    private static UUID asUuid(String text) {
        try {
            return text.length() == 36 ? UUID.fromString(text) : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static Instant instant(OffsetDateTime time) {
        return time == null ? null : time.toInstant();
    }

    static byte[] sha256(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
