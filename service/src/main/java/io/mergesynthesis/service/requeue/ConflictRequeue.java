package io.mergesynthesis.service.requeue;

import io.mergesynthesis.service.core.StoredConflict;
import io.mergesynthesis.service.db.ConflictStore;
import io.mergesynthesis.service.db.MarkedConflicts;
import io.mergesynthesis.service.db.ScopedTransactions;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Gives conflicts the worker pool gave up on another chance, for the API, the web inbox and the {@code requeue}
 * command alike. Every write runs under the conflict's own org scope; only finding which org a conflict or a
 * filter concerns, for a caller bound to no org, reads across orgs. Each transaction that re-queues something also
 * wakes idle workers in every replica, as ingest does.
 */
public final class ConflictRequeue {

    /**
     * Rows re-queued per transaction by a bulk re-queue: each batch is a short transaction on one index range, so
     * a hundred thousand marked rows take a hundred short transactions, never one long one.
     */
    public static final int BATCH_SIZE = 1_000;

    private final ScopedTransactions transactions;
    private final int batchSize;

    public ConflictRequeue(ScopedTransactions transactions) {
        this(transactions, BATCH_SIZE);
    }

    ConflictRequeue(ScopedTransactions transactions, int batchSize) {
        this.transactions = transactions;
        this.batchSize = batchSize;
    }

    /** What a single re-queue did; {@code conflict} is the row as it stands afterwards (absent for NOT_FOUND). */
    public record Single(Kind kind, Optional<StoredConflict> conflict) {
    }

    public enum Kind {
        /** The conflict was marked and is pending again. */
        REQUEUED,
        /** The conflict is in another synthesis state; nothing was written. */
        NOT_MARKED,
        /** No such conflict in the scope asked for: another org's one looks exactly the same. */
        NOT_FOUND
    }

    /**
     * Re-queues conflict {@code id} if it is marked.
     *
     * @param scopeOrg the org the requester acts for; null for a requester that may act on any org's conflicts
     *                 (the platform, the command line)
     */
    public Single one(Requester requester, UUID scopeOrg, UUID id) {
        Optional<UUID> org = scopeOrg != null ? Optional.of(scopeOrg)
                : transactions.crossTenant(handle -> MarkedConflicts.orgOf(handle, id));
        if (org.isEmpty()) {
            return new Single(Kind.NOT_FOUND, Optional.empty());
        }
        UUID orgId = org.get();
        return transactions.inOrg(orgId, handle -> {
            boolean requeued = MarkedConflicts.requeueOne(handle, orgId, id, requester.detailsJson(),
                    requester.inWords()).isPresent();
            if (requeued) {
                ConflictStore.notifyPending(handle);
            }
            Optional<StoredConflict> now = ConflictStore.find(handle, orgId, id);
            if (now.isEmpty()) {
                return new Single(Kind.NOT_FOUND, Optional.empty());
            }
            return new Single(requeued ? Kind.REQUEUED : Kind.NOT_MARKED, now);
        });
    }

    /**
     * Re-queues every marked conflict the filter takes, in batches of at most {@link #BATCH_SIZE} rows, each its
     * own transaction, and returns how many. A batch that is cut short (the request ends, the database goes away)
     * leaves the batches before it done and the rest still marked: running the same re-queue again finishes it.
     */
    public long matching(Requester requester, RequeueFilter filter) {
        List<UUID> orgs = filter.orgId() != null ? List.of(filter.orgId())
                : transactions.crossTenant(handle -> MarkedConflicts.orgsWithMarked(handle, filter.failureReason()));
        String requesterJson = requester.detailsJson();
        String requestedBy = requester.inWords();
        long total = 0;
        for (UUID org : orgs) {
            int batch;
            // Until a batch finds nothing: a batch can come back short while rows remain, when a row it picked was
            // changed by someone else before its lock was free.
            do {
                batch = transactions.inOrg(org, handle -> {
                    int requeued = MarkedConflicts.requeueBatch(handle, org, filter.failureReason(), batchSize,
                            requesterJson, requestedBy);
                    if (requeued > 0) {
                        ConflictStore.notifyPending(handle);
                    }
                    return requeued;
                });
                total += batch;
            } while (batch > 0);
        }
        return total;
    }
}
