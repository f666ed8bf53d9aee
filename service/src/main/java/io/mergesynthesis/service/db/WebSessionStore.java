package io.mergesynthesis.service.db;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * The SQL of {@code web_sessions}. A session is found by the SHA-256 of its secret; the table never holds the
 * secret itself. Runs on a tenant handle with no org in scope: a session belongs to a token, not to an org.
 *
 * <p>The tenant role cannot read the table (it has no row-level security, so reading it would mean reading every
 * org's sessions): each operation is a function of the schema's owner that answers for one hash (schema 22).
 */
public final class WebSessionStore {

    private static final String INSERT = SqlFiles.of(WebSessionStore.class, "insert");
    private static final String FIND_LIVE = SqlFiles.of(WebSessionStore.class, "find_live");
    private static final String END = SqlFiles.of(WebSessionStore.class, "end");
    private static final String VIEW = SqlFiles.of(WebSessionStore.class, "view");

    private WebSessionStore() {
    }

    /** A live session's row with the role and org of its token, as read afresh on each request. */
    public record Row(UUID tokenId, String role, UUID tokenOrg, UUID viewingOrg, Instant expiresAt) {
    }

    /**
     * Opens a session for the token whose SHA-256 is {@code tokenHash}: false, writing nothing, when that token
     * is unknown, revoked or expired at {@code now}. The token's hash, not its id, since ids are no secret.
     */
    public static boolean insert(Handle handle, byte[] idHash, byte[] tokenHash, Instant now, Instant expires) {
        return handle.createQuery(INSERT)
                .bind("hash", idHash)
                .bind("tokenHash", tokenHash)
                .bind("now", Timestamp.from(now))
                .bind("expires", Timestamp.from(expires))
                .mapTo(Boolean.class)
                .one();
    }

    /** The session if it is neither ended nor expired, and its token neither revoked nor expired, at {@code now}. */
    public static Optional<Row> findLive(Handle handle, byte[] idHash, Instant now) {
        return handle.createQuery(FIND_LIVE)
                .bind("hash", idHash)
                .bind("now", Timestamp.from(now))
                .map((rs, ctx) -> new Row(rs.getObject("token_id", UUID.class), rs.getString("role"),
                        rs.getObject("org_id", UUID.class), rs.getObject("viewing_org_id", UUID.class),
                        rs.getTimestamp("expires_at").toInstant()))
                .findOne();
    }

    public static void end(Handle handle, byte[] idHash, Instant now) {
        handle.createQuery(END)
                .bind("now", Timestamp.from(now))
                .bind("hash", idHash)
                .mapTo(Boolean.class)
                .one();
    }

    /** Sets the org a platform session looks at; null for none. */
    public static void view(Handle handle, byte[] idHash, UUID org) {
        handle.createQuery(VIEW)
                .bind("org", org)
                .bind("hash", idHash)
                .mapTo(Boolean.class)
                .one();
    }
}
