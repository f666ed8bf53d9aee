package io.mergesynthesis.service.worker.store;

import io.mergesynthesis.service.db.OneTripBatch;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.worker.store.ConflictLeases.LeasedRow;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads back every row of one claim in a single tenant transaction sent as one round trip
 * ({@link OneTripBatch}), each row under its own org scope ({@code app.org_id} set to that row's org right
 * before that row's read), so that a claim of several conflicts costs one commit and one round trip rather than
 * several each. What it read goes to the workers with their leases.
 *
 * <p>When the batch read fails, nothing is read ahead and each worker reads its own row in a transaction of its
 * own, as it would without this class: the failure is then reported against the row that causes it, with the
 * reason that row's own read gives.
 */
public final class LeaseReader {

    private static final Logger LOG = LoggerFactory.getLogger(LeaseReader.class);

    private final ScopedTransactions transactions;

    public LeaseReader(ScopedTransactions transactions) {
        this.transactions = transactions;
    }

    /** What was read ahead for a claim: per conflict, the row as its org's scope showed it (empty: not visible). */
    public record ReadAhead(Map<UUID, Optional<LeasedRow>> rows) {

        public static final ReadAhead NONE = new ReadAhead(Map.of());

        /** Null when this lease's row was not read ahead and the worker must read it itself. */
        public Optional<LeasedRow> rowOf(Lease lease) {
            return rows.get(lease.conflictId());
        }
    }

    public ReadAhead read(List<Lease> leases) {
        if (leases.isEmpty()) {
            return ReadAhead.NONE;
        }
        try {
            Reads reads = new Reads(leases);
            reads.batch.run(transactions);
            return reads.rows();
        } catch (RuntimeException e) {
            LOG.debug("Reading back {} claimed conflicts together failed; each is read on its own", leases.size(), e);
            return ReadAhead.NONE;
        }
    }

    /**
     * Reads {@code leases} back inside the transaction that claimed them, open on {@code connection}, and commits
     * that transaction in the read's own round trip, so that claim and read-back cost one transaction and no
     * round trip of its own for the commit. Behind a savepoint, set in the same round trip: a read that fails is
     * undone alone and the transaction is left open, for the caller to commit the claim (and whatever else it
     * wrote); each worker then reads its own row, as after a failed {@link #read}. With nothing to read, the
     * transaction is left open too.
     */
    public ReadAhead readThenCommit(Connection connection, List<Lease> leases) {
        if (leases.isEmpty()) {
            return ReadAhead.NONE;
        }
        Reads reads = new Reads(leases);
        reads.batch.savepointFirst(SAVEPOINT).commitLast();
        try {
            reads.batch.runWithin(connection);
        } catch (RuntimeException e) {
            LOG.debug("Reading back {} claimed conflicts in their claim's transaction failed; each is read on its "
                    + "own", leases.size(), e);
            rollBackToSavepoint(connection, e);
            return ReadAhead.NONE;
        }
        return reads.rows();
    }

    private static void rollBackToSavepoint(Connection connection, RuntimeException failure) {
        try (Statement statement = connection.createStatement()) {
            statement.execute("ROLLBACK TO SAVEPOINT " + SAVEPOINT);
        } catch (SQLException e) {
            // The transaction cannot go on: the caller's commit fails, and its write with it, which it retries.
            e.addSuppressed(failure);
            throw new ScopedTransactions.Failed(e);
        }
    }

    private static final String SAVEPOINT = "read_back";

    /** One tenant batch reading every lease's row under that row's own org scope. */
    private final class Reads {
        final OneTripBatch batch = OneTripBatch.tenant();
        final Map<UUID, OneTripBatch.Result<Optional<LeasedRow>>> results = new HashMap<>();

        Reads(List<Lease> leases) {
            for (Lease lease : leases) {
                results.put(lease.conflictId(),
                        ConflictLeases.load(batch, lease.orgId(), lease.conflictId()));
            }
        }

        ReadAhead rows() {
            Map<UUID, Optional<LeasedRow>> rows = new HashMap<>();
            results.forEach((id, read) -> rows.put(id, read.get()));
            return new ReadAhead(rows);
        }
    }
}
