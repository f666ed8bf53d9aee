package io.mergesynthesis.drills;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Base64;
import java.util.UUID;

/** Talks to a replica's API like a client does, with tokens minted straight into the drill's database. */
final class ApiClient {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private ApiClient() {
    }

    /**
     * Mints a token the way {@code token create} stores one (only its SHA-256 is kept) and returns the secret.
     *
     * @param org null for the {@code platform} role
     */
    static String mintToken(DrillDatabase database, String role, UUID org) {
        try (Connection c = database.connect()) {
            return mintToken(c, role, org);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot mint a drill token", e);
        }
    }

    /** {@link #mintToken(DrillDatabase, String, UUID)} over a connection the drill already holds. */
    static String mintToken(Connection connection, String role, UUID org) {
        byte[] random = new byte[32];
        RANDOM.nextBytes(random);
        String secret = "msk_" + Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        try (PreparedStatement s = connection.prepareStatement(
                "INSERT INTO api_tokens (id, token_sha256, role, org_id) VALUES (?, ?, ?, ?)")) {
            s.setObject(1, UUID.randomUUID());
            s.setBytes(2, MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.US_ASCII)));
            s.setString(3, role);
            s.setObject(4, org);
            s.executeUpdate();
        } catch (SQLException | NoSuchAlgorithmException e) {
            throw new IllegalStateException("cannot mint a drill token", e);
        }
        return secret;
    }

    /** Revokes a token minted by {@link #mintToken}, as an operator would: it stays in the table, refused. */
    static void revokeToken(DrillDatabase database, String secret) {
        try (Connection c = database.connect(); PreparedStatement s = c.prepareStatement(
                "UPDATE api_tokens SET revoked_at = now() WHERE token_sha256 = ?")) {
            s.setBytes(1, MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.US_ASCII)));
            if (s.executeUpdate() != 1) {
                throw new IllegalStateException("no such drill token to revoke");
            }
        } catch (SQLException | NoSuchAlgorithmException e) {
            throw new IllegalStateException("cannot revoke a drill token", e);
        }
    }

    /** One conflict in the ingest format; {@code n} makes the dedup key (and so the conflict) unique. */
    static String conflictJson(UUID org, String target, long n) {
        return """
                {"org_id": "%s", "dedup_key": "drill|%s|%d", "action": "tool_call", "target": "%s",
                 "rules": [{"policy_id": "pol-org-1", "scope": "org", "scope_id": "%s", "effect": "deny",
                            "target": "%s"},
                           {"policy_id": "pol-mbr-2", "scope": "member", "scope_id": "%s", "effect": "allow",
                            "target": "%s"}],
                 "winner_policy_id": "pol-org-1", "detected_at": "2026-11-20T10:15:00Z"}
                """.formatted(org, target, n, target, org, target, UUID.nameUUIDFromBytes(("m" + n).getBytes(
                StandardCharsets.UTF_8)), target);
    }

    /** POSTs {@code body} to {@code uri} with the bearer {@code token}; the response, whatever its status. */
    static HttpResponse<String> post(URI uri, String token, String body) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    /** PUTs the JSON {@code body} to {@code uri} with the bearer {@code token}; the response, whatever its status. */
    static HttpResponse<String> put(URI uri, String token, String body) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + token)
                .PUT(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                .build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    static HttpResponse<String> get(URI uri, String token) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET();
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    static HttpClient http() {
        return HTTP;
    }
}
