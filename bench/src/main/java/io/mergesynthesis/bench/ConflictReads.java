package io.mergesynthesis.bench;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import io.mergesynthesis.harness.Replica;

/**
 * A busy inbox opening conflicts: {@code GET /v1/conflicts/{id}} on random conflicts of one org from several
 * clients at once, each waiting for its answer before it sends the next. Every request presents the same token,
 * so the figure moves with what authenticating one request costs, which is what the token cache changes.
 */
final class ConflictReads {

    static final int CLIENTS = 8;
    private static final int WARM_UP = 1_000;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** Up to {@code limit} conflict ids of {@code org}. */
    static List<UUID> ids(BenchDatabase db, UUID org, int limit) throws SQLException {
        List<UUID> ids = new ArrayList<>();
        try (Connection c = db.connectAsSweep();
             PreparedStatement s = c.prepareStatement("SELECT id FROM policy_conflicts WHERE org_id = ? LIMIT ?")) {
            s.setObject(1, org);
            s.setInt(2, limit);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getObject(1, UUID.class));
                }
            }
        }
        if (ids.isEmpty()) {
            throw new IllegalStateException("no conflicts of org " + org + " to read");
        }
        return ids;
    }

    /**
     * Untimed requests, so that the replica's code is compiled before any timed one; a fifth as many in a smoke
     * run, whose figures are only a sign of life.
     */
    void warmUp(Replica replica, String token, List<UUID> ids, boolean quick) throws Exception {
        run(replica, token, ids, quick ? WARM_UP / 5 : WARM_UP);
    }

    /** Seconds that {@code requests} requests took, from the first sent to the last answer read. */
    double seconds(Replica replica, String token, List<UUID> ids, int requests) throws Exception {
        long start = System.nanoTime();
        run(replica, token, ids, requests);
        return (System.nanoTime() - start) / 1e9;
    }

    private void run(Replica replica, String token, List<UUID> ids, int requests) throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        try {
            List<Future<Void>> done = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                int share = requests / CLIENTS + (c < requests % CLIENTS ? 1 : 0);
                done.add(clients.submit(() -> {
                    for (int i = 0; i < share; i++) {
                        read(replica, token, ids.get(ThreadLocalRandom.current().nextInt(ids.size())));
                    }
                    return null;
                }));
            }
            for (Future<Void> f : done) {
                f.get();
            }
        } finally {
            clients.shutdownNow();
        }
    }

    private void read(Replica replica, String token, UUID id) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(replica.api("/v1/conflicts/" + id))
                .header("Authorization", "Bearer " + token)
                .timeout(Duration.ofSeconds(30))
                .build();
        HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        if (response.statusCode() != 200) {
            throw new IOException("GET /v1/conflicts/" + id + " answered " + response.statusCode() + ": "
                    + new String(response.body(), StandardCharsets.UTF_8));
        }
    }
}
