package io.mergesynthesis.service.db;

import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;

/**
 * Decides which database identity a transaction runs as (with {@link OneTripBatch}, its one-round-trip
 * counterpart).
 *
 * <p>Whatever role the service logs in with (a superuser, in the embedded default), each transaction first
 * switches with {@code SET LOCAL ROLE}: tenant work to {@value #TENANT_ROLE}, which row-level security holds
 * to the org in {@code app.org_id}; the worker's cross-tenant claim to {@value #SWEEP_ROLE} with
 * {@code row_security = off}, which makes a sweep that would silently see a subset of rows fail instead.
 * Every setting is transaction-local, so nothing leaks to the next user of a pooled connection.
 * {@link OneTripBatch} makes the same switches for statements sent together in one round trip.
 */
public final class ScopedTransactions {

    public static final String TENANT_ROLE = "merge_synthesis_tenant";
    public static final String SWEEP_ROLE = "merge_synthesis_sweep";

    // The identity switches are written here once; OneTripBatch sends the same statements in its batches.
    // set_config's third argument keeps each setting to the transaction.
    static final String ENTER_SWEEP =
            "SELECT set_config('role', :role, true), set_config('row_security', 'off', true)";
    static final String SCOPE_TO_ORG = "SELECT set_config('app.org_id', :org, true)";

    private final Jdbi jdbi;

    public ScopedTransactions(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    public Jdbi jdbi() {
        return jdbi;
    }

    /** Runs {@code work} in one transaction that sees and changes only {@code orgId}'s rows. */
    public <R, X extends Exception> R inOrg(UUID orgId, HandleCallback<R, X> work) throws X {
        return jdbi.inTransaction(handle -> {
            enterTenant(handle, orgId);
            return work.withHandle(handle);
        });
    }

    /**
     * Runs {@code work} as the tenant role with no org yet: tenant tables show nothing until
     * {@link #switchOrg} names one. For work that spans orgs one at a time, such as a platform batch ingest.
     */
    public <R, X extends Exception> R asTenant(HandleCallback<R, X> work) throws X {
        return jdbi.inTransaction(handle -> {
            enterTenant(handle, null);
            return work.withHandle(handle);
        });
    }

    /**
     * Runs {@code work} in one transaction that sees every org's rows: the worker's claim, the pending gauge
     * and platform-wide reads of the event stream.
     */
    public <R, X extends Exception> R crossTenant(HandleCallback<R, X> work) throws X {
        return jdbi.inTransaction(handle -> {
            handle.createQuery(ENTER_SWEEP)
                    .bind("role", SWEEP_ROLE)
                    .mapTo(String.class)
                    .one();
            return work.withHandle(handle);
        });
    }

    /** Points the current tenant transaction at another org. */
    public static void switchOrg(Handle handle, UUID orgId) {
        handle.createQuery(SCOPE_TO_ORG)
                .bind("org", orgId == null ? "" : orgId.toString())
                .mapTo(String.class)
                .one();
    }

    private static void enterTenant(Handle handle, UUID orgId) {
        // One round trip: the role switch and the org scope are both transaction-local settings.
        handle.createQuery("SELECT set_config('role', :role, true), set_config('app.org_id', :org, true)")
                .bind("role", TENANT_ROLE)
                .bind("org", orgId == null ? "" : orgId.toString())
                .mapTo(String.class)
                .one();
    }
}
