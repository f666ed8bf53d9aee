package io.mergesynthesis.service.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mergesynthesis.service.testing.TestDatabase;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A read in {@link ScopedTransactions#readInOrg} sees one snapshot: a worker that commits between two of its
 * statements changes neither, so a conflict's state and its history are read as they stood together.
 */
class ReadSnapshotTest {

    private static final UUID ORG_A = UUID.fromString("aaaaaaaa-0000-4000-8000-0000000000a1");
    private static final UUID ORG_B = UUID.fromString("bbbbbbbb-0000-4000-8000-0000000000b2");

    private static TestDatabase database;
    private static ScopedTransactions transactions;

    @BeforeAll
    static void seed() {
        database = TestDatabase.fresh();
        transactions = database.transactions();
    }

    @Test
    void aCommitBetweenTwoStatementsOfOneReadIsNotSeenByTheSecond() {
        UUID id = insert(ORG_A, "snapshot-1");

        List<String> seen = transactions.readInOrg(ORG_A, h -> {
            String before = statusOf(h, id);
            // Another thread (JDBI would lend this one's handle to a nested call) changes the row and commits.
            CompletableFuture.runAsync(() -> transactions.inOrg(ORG_A, other -> other.createUpdate(
                            "UPDATE policy_conflicts SET inbox_status = 'acknowledged' WHERE id = :id")
                    .bind("id", id).execute())).join();
            return List.of(before, statusOf(h, id));
        });

        assertThat(seen).containsExactly("open", "open");
        String after = transactions.readInOrg(ORG_A, h -> statusOf(h, id));
        assertThat(after).isEqualTo("acknowledged");
    }

    @Test
    void aReadChangesNothing() {
        UUID id = insert(ORG_A, "snapshot-2");

        assertThatThrownBy(() -> transactions.readInOrg(ORG_A, h -> h.createUpdate(
                        "UPDATE policy_conflicts SET inbox_status = 'acknowledged' WHERE id = :id")
                .bind("id", id).execute()))
                .hasMessageContaining("read-only transaction");
        String after = transactions.readInOrg(ORG_A, h -> statusOf(h, id));
        assertThat(after).isEqualTo("open");
    }

    @Test
    void aReadSeesOnlyItsOrg() {
        insert(ORG_A, "snapshot-3");
        insert(ORG_B, "snapshot-4");

        List<UUID> orgs = transactions.readInOrg(ORG_B, h ->
                h.createQuery("SELECT org_id FROM policy_conflicts").mapTo(UUID.class).list());

        assertThat(orgs).isNotEmpty().containsOnly(ORG_B);
    }

    private static String statusOf(Handle h, UUID id) {
        return h.createQuery("SELECT inbox_status FROM policy_conflicts WHERE id = :id").bind("id", id)
                .mapTo(String.class).one();
    }

    private static UUID insert(UUID org, String dedupKey) {
        return TenantConflicts.insert(transactions, org, dedupKey);
    }
}
