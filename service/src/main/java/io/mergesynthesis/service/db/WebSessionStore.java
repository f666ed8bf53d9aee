package io.mergesynthesis.service.db;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * The SQL of {@code web_sessions} and {@code people}. A session is found by the SHA-256 of its secret; the table
 * never holds the secret itself. Runs on a tenant handle with no org in scope: a session belongs to a token or a
 * person, not to an org.
 *
 * <p>The tenant role cannot read the table (it has no row-level security, so reading it would mean reading every
 * org's sessions): each operation is a function of the schema's owner that answers for one hash (schema 22).
 */
public final class WebSessionStore {

    private static final String INSERT = SqlFiles.of(WebSessionStore.class, "insert");
    private static final String USE = SqlFiles.of(WebSessionStore.class, "use");
    private static final String RECORD_PERSON = SqlFiles.of(WebSessionStore.class, "record_person");
    private static final String INSERT_PERSON = SqlFiles.of(WebSessionStore.class, "insert_person");
    private static final String END = SqlFiles.of(WebSessionStore.class, "end");
    private static final String VIEW = SqlFiles.of(WebSessionStore.class, "view");

    private WebSessionStore() {
    }

    /** A live session's row with the role and org of its token or person, as read afresh on each request. */
    public record Row(UUID tokenId, String tokenLabel, String role, UUID org, UUID viewingOrg, Instant expiresAt,
                      String personSubject, String personEmail, String personName) {
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

    /** Records a person's sign-in in {@code people}: the latest claims, the first sighting kept. */
    public static void recordPerson(Handle handle, String subject, UUID org, String email, String name, String role,
                                    Instant now) {
        handle.createQuery(RECORD_PERSON)
                .bind("subject", subject)
                .bind("org", org)
                .bind("email", email)
                .bind("name", name)
                .bind("role", role)
                .bind("now", Timestamp.from(now))
                .mapTo(String.class)
                .findOne();
    }

    /** Opens a session for a person whose sign-in {@link #recordPerson} recorded in the same transaction. */
    public static void insertPerson(Handle handle, byte[] idHash, String subject, String email, String name,
                                    String role, UUID org, String idToken, Instant now, Instant expires) {
        handle.createQuery(INSERT_PERSON)
                .bind("hash", idHash)
                .bind("subject", subject)
                .bind("email", email)
                .bind("name", name)
                .bind("role", role)
                .bind("org", org)
                .bind("idToken", idToken)
                .bind("now", Timestamp.from(now))
                .bind("expires", Timestamp.from(expires))
                .mapTo(String.class)
                .findOne();
    }

    /**
     * The session if it is neither ended nor past its absolute limit at {@code now}, was used after
     * {@code idleSince}, and (a token's) its token is neither revoked nor expired; records the use.
     */
    public static Optional<Row> use(Handle handle, byte[] idHash, Instant now, Instant idleSince) {
        return handle.createQuery(USE)
                .bind("hash", idHash)
                .bind("now", Timestamp.from(now))
                .bind("idleSince", Timestamp.from(idleSince))
                .map((rs, ctx) -> new Row(rs.getObject("token_id", UUID.class), rs.getString("token_label"),
                        rs.getString("role"), rs.getObject("org_id", UUID.class),
                        rs.getObject("viewing_org_id", UUID.class), rs.getTimestamp("expires_at").toInstant(),
                        rs.getString("person_subject"), rs.getString("person_email"), rs.getString("person_name")))
                .findOne();
    }

    /** Ends the session; answers the ID token of a person's session that this call ended. */
    public static Optional<String> end(Handle handle, byte[] idHash, Instant now) {
        return handle.createQuery(END)
                .bind("now", Timestamp.from(now))
                .bind("hash", idHash)
                .mapTo(String.class)
                .findOne();
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
