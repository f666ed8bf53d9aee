package io.mergesynthesis.service.worker.batch;

import io.mergesynthesis.llm.BatchSettings;
import io.mergesynthesis.llm.LlmSettings;
import io.mergesynthesis.llm.ProviderBatches;
import io.mergesynthesis.synthesis.Ticker;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polls one batch at a time, holding it so that no other replica polls it meanwhile: a batch without a provider
 * id is looked for at the provider first ({@link BatchAdoption}); an ended one has its results stored
 * ({@link BatchResults}) and is done. The hold is on the batch's row, so a replica that dies while polling lets
 * the next one take over when the hold runs out, and every result is read again from the provider.
 */
final class BatchPoller {

    private static final Logger LOG = LoggerFactory.getLogger(BatchPoller.class);

    private final BatchRows rows;
    private final LlmSettings llm;
    private final BatchClients clients;
    private final BatchAdoption adoption;
    private final BatchResults results;
    private final String owner;
    private final BatchMetrics metrics;

    BatchPoller(BatchRows rows, LlmSettings llm, BatchClients clients, BatchAdoption adoption, BatchResults results,
                String owner, BatchMetrics metrics) {
        this.metrics = metrics;
        this.rows = rows;
        this.llm = llm;
        this.clients = clients;
        this.adoption = adoption;
        this.results = results;
        this.owner = owner;
    }

    /** Polls the batch most overdue, if one is due; false when none was. */
    boolean pollOnce() throws InterruptedException {
        BatchSettings settings = llm.getBatch();
        Duration holdFor = hold();
        Optional<BatchRow> taken = rows.takePoll(owner, holdFor, sendGrace());
        if (taken.isEmpty()) {
            return false;
        }
        BatchRow row = taken.get();
        PollHold hold = new PollHold(rows, row, owner, holdFor, Ticker.SYSTEM);
        Optional<BatchRoute> route = BatchRoute.of(llm, row.provider() + "/" + row.model());
        if (route.isEmpty()) {
            LOG.warn("batch {} went to '{}/{}', which this replica cannot reach as a batch provider; left for "
                    + "another", row.id(), row.provider(), row.model());
            rows.pollLater(row, owner, settings.getPollInterval());
            return true;
        }
        ProviderBatches client = clients.of(route.get());
        try {
            Optional<ProviderBatches.Batch> batch = row.providerBatchId() != null
                    ? Optional.of(client.retrieve(row.providerBatchId())) : adopt(row, client, hold);
            if (batch.isEmpty()) {
                return true;
            }
            if (!batch.get().ended()) {
                if (row.cancelDue()) {
                    // The cancel asked for reaches the provider here; what it answered meanwhile comes with the
                    // results once the batch ends, canceled requests among them.
                    hold.renew();
                    client.cancel(batch.get().id());
                    rows.markCancelSent(row, owner);
                    LOG.info("batch {} ({}) of org {}: the provider is asked to cancel it", row.id(),
                            batch.get().id(), row.orgId());
                }
                rows.pollLater(row, owner, settings.getPollInterval());
                return true;
            }
            hold.renew();
            Optional<Instant> endedAt = rows.markEnded(row, owner);
            if (endedAt.isEmpty()) {
                return true;
            }
            BigDecimal cost = results.store(row, route.get(), client, batch.get(), endedAt.get(), owner, hold);
            // A conflict the results did not name was not answered: it waits for its next attempt.
            rows.backToPending(row.orgId(), row.id(), null);
            rows.markDone(row, owner, cost);
            metrics.batch(row.provider(), BatchMetrics.ENDED);
            LOG.info("batch {} ({}) of org {} ended; its results are stored", row.id(), batch.get().id(), row.orgId());
        } catch (PollHold.Lost e) {
            LOG.info("{}: this replica stops polling it", e.getMessage());
        } catch (ProviderBatches.Failed e) {
            LOG.warn("batch {} could not be polled ({}); it is polled again in {}", row.id(), e.getMessage(),
                    settings.getPollInterval());
            rows.pollLater(row, owner, settings.getPollInterval());
        }
        return true;
    }

    /** The batch the provider made for this row, if it made one; empty when nothing is left to do now. */
    private Optional<ProviderBatches.Batch> adopt(BatchRow row, ProviderBatches client, PollHold hold)
            throws ProviderBatches.Failed, InterruptedException {
        BatchAdoption.Finding finding = adoption.find(row, client, hold);
        if (finding instanceof BatchAdoption.Found found) {
            rows.recordSent(row.orgId(), row.id(), found.batch().id(), Duration.ZERO);
            metrics.batch(row.provider(), BatchMetrics.ADOPTED);
            LOG.info("batch {} of org {}, whose create went unanswered, is {} at the provider: adopted, nothing sent "
                    + "again", row.id(), row.orgId(), found.batch().id());
            return Optional.of(found.batch());
        }
        if (finding instanceof BatchAdoption.Absent) {
            int back = rows.backToPending(row.orgId(), row.id(), null);
            rows.markDone(row, owner, null);
            metrics.batch(row.provider(), BatchMetrics.NEVER_MADE);
            LOG.info("batch {} of org {} was never made at the provider: its {} conflicts wait again", row.id(),
                    row.orgId(), back);
            return Optional.empty();
        }
        rows.pollLater(row, owner, llm.getBatch().getPollInterval());
        return Optional.empty();
    }

    /** The hold on a batch polled: as configured, and at least two of the longest provider calls. */
    private Duration hold() {
        Duration twoCalls = sendGrace();
        Duration configured = llm.getBatch().getPollHold();
        return configured.compareTo(twoCalls) >= 0 ? configured : twoCalls;
    }

    /**
     * How long a create may still be on its way: its sender waits at most the provider's request timeout for the
     * answer, and a batch row younger than twice that is left to it.
     */
    private Duration sendGrace() {
        Duration longest = Duration.ZERO;
        for (var provider : llm.getProviders().values()) {
            if (provider.getRequestTimeout().compareTo(longest) > 0) {
                longest = provider.getRequestTimeout();
            }
        }
        return longest.multipliedBy(2);
    }
}
