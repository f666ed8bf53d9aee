package io.mergesynthesis.service.worker;

import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.worker.ConflictLeases.LeasedRow;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads back every row of one claim in a single tenant transaction, each row under its own org scope
 * ({@code app.org_id} set to that row's org right before that row's read), so that a claim of several conflicts
 * costs one commit rather than one each. What it read goes to the workers with their leases.
 *
 * <p>When the batch read fails, nothing is read ahead and each worker reads its own row in a transaction of its
 * own, as it would without this class: the failure is then reported against the row that causes it, with the
 * reason that row's own read gives.
 */
final class LeaseReader {

    private static final Logger LOG = LoggerFactory.getLogger(LeaseReader.class);

    private final ScopedTransactions transactions;
    private final UnaryOperator<UUID> orgScope;

    LeaseReader(ScopedTransactions transactions, UnaryOperator<UUID> orgScope) {
        this.transactions = transactions;
        this.orgScope = orgScope;
    }

    /** What was read ahead for a claim: per conflict, the row as its org's scope showed it (empty: not visible). */
    record ReadAhead(Map<UUID, Optional<LeasedRow>> rows) {

        static final ReadAhead NONE = new ReadAhead(Map.of());

        /** Null when this lease's row was not read ahead and the worker must read it itself. */
        Optional<LeasedRow> rowOf(Lease lease) {
            return rows.get(lease.conflictId());
        }
    }

    ReadAhead read(List<Lease> leases) {
        if (leases.isEmpty()) {
            return ReadAhead.NONE;
        }
        try {
            return transactions.inOrg(orgScope.apply(leases.get(0).orgId()), handle -> {
                Map<UUID, Optional<LeasedRow>> rows = new HashMap<>();
                for (int i = 0; i < leases.size(); i++) {
                    Lease lease = leases.get(i);
                    if (i > 0) {
                        ScopedTransactions.switchOrg(handle, orgScope.apply(lease.orgId()));
                    }
                    rows.put(lease.conflictId(), ConflictLeases.load(handle, lease.conflictId()));
                }
                return new ReadAhead(rows);
            });
        } catch (RuntimeException e) {
            LOG.debug("Reading back {} claimed conflicts together failed; each is read on its own", leases.size(), e);
            return ReadAhead.NONE;
        }
    }
}
