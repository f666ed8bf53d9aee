package io.mergesynthesis.drills;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import io.mergesynthesis.harness.Product;
import io.mergesynthesis.harness.Replica;
import io.mergesynthesis.testsupport.Wait;

/** The harness itself: one replica, a few conflicts over HTTP, every one merged and journaled exactly once. */
@Tag("drill")
class HarnessCheckDrill {

    @Test
    void oneReplicaMergesWhatItIsSent() throws Exception {
        DrillReport report = new DrillReport("harness-check");
        try (DrillDatabase database = DrillDatabase.start("harness-check")) {
            Path dir = Product.workDirectory("drills").resolve("harness-check");
            CallLog calls = new CallLog(dir.resolve("calls-" + UUID.randomUUID() + ".log"));
            Map<String, String> settings = new HashMap<>(calls.setting());
            Replica replica = DrillReplicas.of("r1", database, dir, settings).start();
            try {
                UUID org = UUID.randomUUID();
                String ingest = ApiClient.mintToken(database, "ingest", org);
                for (int i = 0; i < 20; i++) {
                    HttpResponse<String> response = ApiClient.post(replica.api("/v1/conflicts"), ingest,
                            ApiClient.conflictJson(org, "jira.create_issue", i));
                    assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
                }
                Wait.holdsWithin("the twenty conflicts merged", Duration.ofSeconds(30), () -> database.count(
                        "SELECT count(*) FROM policy_conflicts WHERE synthesis_state = 'done'") >= 20);
                report.figure("merged", database.count(
                        "SELECT count(*) FROM policy_conflicts WHERE suggested_merge IS NOT NULL"));
                report.figure("synthesizer calls", calls.calls());
                assertThat(database.count("SELECT count(*) FROM policy_conflicts WHERE synthesis_state = 'done'"))
                        .isEqualTo(20);
                assertThat(calls.calls()).isEqualTo(20);
                assertThat(calls.entries()).allMatch(e -> e.owner().equals(replica.owner()));
            } finally {
                replica.stop();
                report.write();
            }
        }
    }
}
