package io.mergesynthesis.service.operator;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.service.auth.Caller;
import io.mergesynthesis.service.core.ProviderBatch;
import io.mergesynthesis.service.db.EventLog;
import io.mergesynthesis.service.db.LlmBatches;
import io.mergesynthesis.service.db.ScopedTransactions;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The batch lane's batches for the platform: the newest of every org, and a cancel. A cancel is asked here and
 * carried out by the replica that polls the batch next; what the provider answered before it stopped is stored
 * and on record as any batch's results are.
 */
public final class BatchAdmin {

    /** The most batches a list shows. */
    public static final int LISTED = 200;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ScopedTransactions transactions;

    public BatchAdmin(ScopedTransactions transactions) {
        this.transactions = transactions;
    }

    /** The newest batches, newest first. */
    public List<ProviderBatch> recent() {
        return transactions.crossTenant(handle -> LlmBatches.recent(handle, LISTED));
    }

    /**
     * Asks that batch {@code id} be canceled, with a {@code batch_cancel_requested} event in its org's stream
     * naming {@code by}; empty when there is no such batch. A batch already done is answered as it stands.
     */
    public Optional<ProviderBatch> cancel(Caller by, UUID id) {
        return transactions.crossTenant(handle -> {
            Optional<ProviderBatch> batch = LlmBatches.cancel(handle, id);
            batch.filter(b -> !b.done()).ifPresent(b -> {
                ObjectNode details = JSON.createObjectNode().put("batch_id", b.id().toString())
                        .put("provider", b.provider()).put("provider_batch_id", b.providerBatchId())
                        .put("requests", b.requests());
                by.actor().addTo(details).put("role", by.role().wireName());
                EventLog.appendPlatformChange(handle, b.orgId(), EventLog.EventType.BATCH_CANCEL_REQUESTED,
                        details.toString());
            });
            return batch;
        });
    }
}
