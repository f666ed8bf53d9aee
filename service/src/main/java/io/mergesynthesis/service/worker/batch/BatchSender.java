package io.mergesynthesis.service.worker.batch;

import io.mergesynthesis.llm.LlmSettings;
import io.mergesynthesis.llm.Prompt;
import io.mergesynthesis.llm.RequestPlan;
import io.mergesynthesis.llm.anthropic.AnthropicBatches;
import io.mergesynthesis.llm.anthropic.AnthropicProtocol;
import io.mergesynthesis.service.worker.attempt.MergeAcceptance;
import io.mergesynthesis.service.worker.store.ConflictLeases.LeasedRow;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the batch lane's waiting conflicts, one batch per org at a time: the batch's row and its conflicts marked
 * batched first, in one transaction, then the create, then the provider's id on the row. A create that fails or
 * goes unanswered leaves the row without an id; its poller finds out later whether the provider made the batch
 * ({@link BatchAdoption}), and nothing is sent again meanwhile.
 */
final class BatchSender {

    private static final Logger LOG = LoggerFactory.getLogger(BatchSender.class);
    /** Orgs looked at in one round; the next round takes the rest. */
    private static final int ORGS_PER_ROUND = 16;

    private final BatchRows rows;
    private final LlmSettings llm;
    private final BatchClients clients;
    private final MergeAcceptance acceptance;
    private final BatchMetrics metrics;
    private final Prompt prompt = Prompt.shipped();

    BatchSender(BatchRows rows, LlmSettings llm, BatchClients clients, MergeAcceptance acceptance,
                BatchMetrics metrics) {
        this.rows = rows;
        this.metrics = metrics;
        this.llm = llm;
        this.clients = clients;
        this.acceptance = acceptance;
    }

    /** Sends one batch for each org with conflicts due in the batch lane; how many batches were created. */
    int sendWaiting() throws InterruptedException {
        int sent = 0;
        for (UUID org : rows.orgsWithBatchWork(ORGS_PER_ROUND)) {
            String orgModel = rows.orgModel(org);
            Optional<BatchRoute> route = BatchRoute.of(llm, orgModel);
            if (route.isEmpty()) {
                LOG.warn("org {} is in the batch lane, but its model {} has no provider with a batch API here "
                        + "(anthropic only, so far) or no price: its conflicts wait", org,
                        orgModel != null ? orgModel : llm.getPrimaryModel());
                continue;
            }
            if (send(org, route.get())) {
                sent++;
            }
        }
        return sent;
    }

    private boolean send(UUID org, BatchRoute route) throws InterruptedException {
        UUID batch = UUID.randomUUID();
        List<BatchRows.Batched> batched = rows.open(batch, org, route.provider(), route.model(),
                llm.getBatch().getMaxRequests());
        if (batched.isEmpty()) {
            return false;
        }
        List<AnthropicBatches.Request> requests = new ArrayList<>();
        for (LeasedRow row : rows.load(org, batched.stream().map(BatchRows.Batched::conflictId).toList())) {
            ConflictSnapshot snapshot = acceptance.snapshotOrNull(row);
            if (snapshot == null) {
                // Its attempt in the interactive lane fails it the usual way, with the reason on the conflict.
                rows.backToPending(org, batch, row.id());
                continue;
            }
            requests.add(new AnthropicBatches.Request(new BatchCustomId(batch, row.id()).encoded(),
                    AnthropicProtocol.body(route.settings(), route.model(), prompt, snapshot, null,
                            new RequestPlan(route.settings().getMaxOutputTokens(), route.price().cacheFromTokens()))));
        }
        if (requests.isEmpty()) {
            return false;
        }
        try {
            AnthropicBatches.Batch created = clients.of(route).create(requests);
            rows.recordSent(org, batch, created.id(), llm.getBatch().getPollInterval());
            metrics.batch(route.provider(), BatchMetrics.SENT);
            LOG.info("sent batch {} of org {} to '{}' as {}: {} requests", batch, org, route.provider(),
                    created.id(), requests.size());
            return true;
        } catch (AnthropicBatches.Failed e) {
            metrics.batch(route.provider(), BatchMetrics.CREATE_FAILED);
            LOG.warn("the create of batch {} of org {} at '{}' got no usable answer ({}); its poller looks for it "
                    + "at the provider before anything is sent again", batch, org, route.provider(), e.getMessage());
            return false;
        }
    }
}
