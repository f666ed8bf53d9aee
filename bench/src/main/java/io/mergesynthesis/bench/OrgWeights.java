package io.mergesynthesis.bench;

import io.mergesynthesis.harness.Replica;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;

/** Sets an org's weight, its share of the claims while other orgs wait too, the way the platform does: the API. */
final class OrgWeights {

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** {@code PUT /v1/orgs/{org}/synthesis} with {@code {"weight": weight}} and a platform token. */
    void set(Replica replica, String platformToken, UUID org, int weight) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(replica.api("/v1/orgs/" + org + "/synthesis"))
                .header("Authorization", "Bearer " + platformToken)
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(30))
                .PUT(HttpRequest.BodyPublishers.ofString("{\"weight\":" + weight + "}"))
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        if (response.statusCode() != 200) {
            throw new IOException("PUT /v1/orgs/" + org + "/synthesis answered " + response.statusCode() + ": "
                    + response.body());
        }
    }
}
