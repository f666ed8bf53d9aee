package io.mergesynthesis.service.worker.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.testing.Seed;
import io.mergesynthesis.service.testing.TestApp;
import io.mergesynthesis.testsupport.Wait;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jdbi.v3.core.Jdbi;

/** The steps the batch lane's end-to-end tests share: an org in lane batch, its batch sent, its conflicts merged. */
final class BatchLaneSteps {

    static final Duration WAIT = Duration.ofSeconds(60);

    private BatchLaneSteps() {
    }

    /** Puts {@code org} in lane batch and reports {@code n} conflicts in one request; their ids. */
    static List<UUID> inLaneBatch(TestApp app, String platform, UUID org, int n, String prefix) {
        return inLaneBatch(app, platform, org, null, n, prefix);
    }

    /** The same, with {@code budget} the org's monthly budget in USD, null for none. */
    static List<UUID> inLaneBatch(TestApp app, String platform, UUID org, BigDecimal budget, int n, String prefix) {
        var lane = app.put(platform, "/v1/orgs/" + org + "/synthesis", "{\"lane\": \"batch\""
                + (budget == null ? "" : ", \"monthly_budget_usd\": " + budget) + "}");
        assertThat(lane.statusCode()).as(lane.body()).isEqualTo(200);
        String reports = IntStream.range(0, n)
                .mapToObj(i -> Seed.report(org, prefix + "-" + i, "jira.issue_" + i))
                .collect(Collectors.joining(",", "{\"conflicts\": [", "]}"));
        var ingested = app.post(platform, "/v1/conflicts", reports);
        assertThat(ingested.statusCode()).as(ingested.body()).isIn(200, 201);
        return app.database().jdbi().withHandle(h -> h.createQuery(
                "SELECT id FROM policy_conflicts WHERE org_id = :org").bind("org", org).mapTo(UUID.class).list());
    }

    /** The provider's id of {@code org}'s batch, once its row records it. */
    static String awaitBatchOf(Jdbi superuser, UUID org) {
        return Wait.forValue("a batch of org " + org + ", sent", WAIT,
                () -> superuser.withHandle(h -> h.createQuery("SELECT provider_batch_id FROM llm_batches"
                                + " WHERE org_id = :org AND provider_batch_id IS NOT NULL")
                        .bind("org", org).mapTo(String.class).findOne().orElse(null)),
                id -> id != null);
    }

    static void awaitMerged(Jdbi superuser, List<UUID> conflicts) {
        Wait.until("every conflict merged", WAIT, () -> superuser.withHandle(h -> h.createQuery(
                "SELECT count(*) FROM policy_conflicts WHERE id = ANY(:ids) AND synthesis_state = 'done'")
                .bind("ids", conflicts.toArray(new UUID[0])).mapTo(Long.class).one()) == conflicts.size());
    }
}
