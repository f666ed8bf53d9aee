package io.mergesynthesis.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.mergesynthesis.harness.Replica;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/**
 * One conflict of an org reported through the API ({@code POST /v1/conflicts} with the org's ingest token), and
 * its wait: the seconds from its report being stored, when it became claimable, to its merge being stored, both
 * on the database's clock ({@code received_at} and {@code synthesized_at}), so that how often the row is looked
 * at does not enter the figure.
 */
final class LoneConflict {

    private static final Duration POLL = Duration.ofMillis(20);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final BenchDatabase db;
    private final Fixture fixture;

    LoneConflict(BenchDatabase db, Fixture fixture) {
        this.db = db;
        this.fixture = fixture;
    }

    /** Reports one conflict of {@code org} and returns its wait in seconds, once it is merged. */
    double report(Replica replica, UUID org, String ingestToken, String dedupKey, Duration timeout)
            throws Exception {
        UUID id = post(replica, org, ingestToken, dedupKey);
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Connection c = db.connectAsSweep(); PreparedStatement wait = c.prepareStatement(
                "SELECT synthesis_state, extract(epoch FROM synthesized_at - received_at) "
                        + "FROM policy_conflicts WHERE id = ?")) {
            wait.setObject(1, id);
            while (true) {
                try (ResultSet rs = wait.executeQuery()) {
                    if (rs.next() && "done".equals(rs.getString(1))) {
                        return rs.getDouble(2);
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException("conflict " + id + " of org " + org + " had no merge " + timeout.toSeconds()
                            + " s after its report");
                }
                Replica.sleep(POLL.toMillis());
            }
        }
    }

    private UUID post(Replica replica, UUID org, String ingestToken, String dedupKey) throws Exception {
        String report = "{\"org_id\":\"" + org + "\",\"dedup_key\":\"" + dedupKey + "\",\"action\":\""
                + fixture.action() + "\",\"target\":\"" + fixture.target() + "\",\"rules\":"
                + fixture.rulesJson(org) + ",\"winner_policy_id\":\"" + fixture.winnerPolicyId()
                + "\",\"detected_at\":\"" + Instant.now() + "\"}";
        HttpRequest request = HttpRequest.newBuilder(replica.api("/v1/conflicts"))
                .header("Authorization", "Bearer " + ingestToken)
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(report))
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        if (response.statusCode() != 201) {
            throw new IOException("POST /v1/conflicts answered " + response.statusCode() + ": " + response.body());
        }
        return UUID.fromString(JSON.readTree(response.body()).get("id").asText());
    }
}
