package io.mergesynthesis.service.requeue;

import io.mergesynthesis.service.db.MarkedConflicts;
import io.mergesynthesis.service.testing.TestDatabase;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * Measures a bulk re-queue of 100,000 marked conflicts (spread over 10 orgs, beside 100,000 finished ones): the
 * time in all, and the time of one batch alone, which bounds how long any one transaction holds its row locks. A measurement,
 * not a test: it asserts nothing and is not part of {@code mvn verify} (its name does not end in Test). Run it with
 * {@code mvn -B test -pl service -Dtest=RequeueBulkMeasure -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class RequeueBulkMeasure {

    static final int MARKED = 100_000;
    static final int ORGS = 10;

    @Test
    void measure() {
        TestDatabase database = TestDatabase.fresh();
        Jdbi db = database.jdbi();
        db.useHandle(h -> h.createUpdate("""
                        INSERT INTO policy_conflicts (id, org_id, dedup_key, action, target, rules, winner_policy_id,
                                                      detected_at, synthesis_state, attempts, last_failure_reason,
                                                      failure_marker, suggested_merge)
                        SELECT gen_random_uuid(), md5('org-' || (i % :orgs))::uuid, 'measure-' || i, 'tool_call',
                               'jira.create_issue', '[]', 'p1', now(),
                               CASE WHEN i % 2 = 0 THEN 'max_attempts_exceeded' ELSE 'done' END,
                               3, CASE WHEN i % 2 = 0 THEN 'synthesizer' END,
                               CASE WHEN i % 2 = 0 THEN 'synthesis_max_attempts_exceeded' END,
                               CASE WHEN i % 2 = 1 THEN '{}'::jsonb END
                        FROM generate_series(1, :rows) AS i""")
                .bind("orgs", ORGS).bind("rows", MARKED * 2).execute());
        db.useHandle(h -> h.execute("ANALYZE policy_conflicts"));

        long started = System.nanoTime();
        long requeued = new ConflictRequeue(database.transactions()).matching(Requester.commandLine(),
                new RequeueFilter(null, "synthesizer"));
        long millis = (System.nanoTime() - started) / 1_000_000;
        System.out.printf("bulk re-queue: %d conflicts in %d ms, in batches of at most %d%n", requeued, millis,
                ConflictRequeue.BATCH_SIZE);

        // One batch alone, the longest any one transaction holds its row locks: mark one org's rows again.
        UUID org = db.withHandle(h -> h.createQuery("SELECT md5('org-0')::uuid").mapTo(UUID.class).one());
        db.useHandle(h -> h.createUpdate("""
                        UPDATE policy_conflicts SET synthesis_state = 'max_attempts_exceeded', attempts = 3,
                               last_failure_reason = 'synthesizer', failure_marker = 'synthesis_max_attempts_exceeded'
                        WHERE org_id = :org AND synthesis_state = 'pending'""").bind("org", org).execute());
        for (int run = 0; run < 5; run++) {
            long batchStart = System.nanoTime();
            int batch = database.transactions().inOrg(org, h -> MarkedConflicts.requeueBatch(h, org, "synthesizer",
                    ConflictRequeue.BATCH_SIZE, "{\"requested_by\": \"cli\"}", "the requeue command"));
            System.out.printf("one batch: %d conflicts in %.1f ms%n", batch,
                    (System.nanoTime() - batchStart) / 1e6);
        }
    }
}
