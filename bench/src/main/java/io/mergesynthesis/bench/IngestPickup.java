package io.mergesynthesis.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
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
import java.util.List;
import java.util.UUID;
import io.mergesynthesis.harness.Replica;

/**
 * How long a new conflict reported to the API waits for its merge: {@code POST /v1/conflicts} with an ingest
 * token, one conflict at a time, timed from the request sent until a connection polling the row every millisecond
 * sees its merge stored. Unlike {@link PickupLatency}, which inserts the row itself to time the pool alone, this
 * is the whole way a client's report takes, ingest included.
 */
final class IngestPickup {

    private static final Duration SAMPLE_TIMEOUT = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final BenchDatabase db;
    private final Fixture fixture;

    IngestPickup(BenchDatabase db, Fixture fixture) {
        this.db = db;
        this.fixture = fixture;
    }

    /**
     * Milliseconds from each report sent to its stored merge, {@code samples} times, the orgs taking turns.
     *
     * @param ingestTokens an ingest token of each org in {@code orgs}, in the same order
     */
    Percentiles measure(Replica replica, List<UUID> orgs, List<String> ingestTokens, String batch, int samples)
            throws Exception {
        double[] millis = new double[samples];
        try (Connection watcher = db.connectAsSweep(); PreparedStatement state = watcher.prepareStatement(
                "SELECT synthesis_state FROM policy_conflicts WHERE id = ?")) {
            for (int i = 0; i < samples; i++) {
                UUID org = orgs.get(i % orgs.size());
                String report = "{\"org_id\":\"" + org + "\",\"dedup_key\":\"" + batch + "-" + i + "-"
                        + UUID.randomUUID() + "\",\"action\":\"" + fixture.action() + "\",\"target\":\""
                        + fixture.target() + "\",\"rules\":" + fixture.rulesJson(org) + ",\"winner_policy_id\":\""
                        + fixture.winnerPolicyId() + "\",\"detected_at\":\"" + Instant.now() + "\"}";
                HttpRequest request = HttpRequest.newBuilder(replica.api("/v1/conflicts"))
                        .header("Authorization", "Bearer " + ingestTokens.get(i % orgs.size()))
                        .header("Content-Type", "application/json")
                        .timeout(Duration.ofSeconds(30))
                        .POST(HttpRequest.BodyPublishers.ofString(report))
                        .build();
                long sent = System.nanoTime();
                HttpResponse<String> response = http.send(request,
                        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
                if (response.statusCode() != 201) {
                    throw new IOException("POST /v1/conflicts answered " + response.statusCode() + ": "
                            + response.body());
                }
                UUID id = UUID.fromString(JSON.readTree(response.body()).get("id").asText());
                state.setObject(1, id);
                while (true) {
                    try (ResultSet rs = state.executeQuery()) {
                        if (rs.next() && "done".equals(rs.getString(1))) {
                            break;
                        }
                    }
                    if (System.nanoTime() - sent > SAMPLE_TIMEOUT.toNanos()) {
                        throw new IOException("conflict " + id + " (sample " + i + ") had no merge after "
                                + SAMPLE_TIMEOUT.toSeconds() + " s");
                    }
                    Replica.sleep(1);
                }
                millis[i] = (System.nanoTime() - sent) / 1e6;
            }
        }
        return new Percentiles(millis);
    }
}
