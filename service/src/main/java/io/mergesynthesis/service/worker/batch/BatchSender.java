package io.mergesynthesis.service.worker.batch;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.llm.LlmSettings;
import io.mergesynthesis.llm.Prompt;
import io.mergesynthesis.llm.ProviderBatches;
import io.mergesynthesis.llm.RequestPlan;
import io.mergesynthesis.llm.TokenEstimate;
import io.mergesynthesis.llm.Usage;
import io.mergesynthesis.llm.anthropic.AnthropicProtocol;
import io.mergesynthesis.llm.openai.OpenAiProtocol;
import io.mergesynthesis.service.core.Lane;
import io.mergesynthesis.service.core.SynthesisSettings;
import io.mergesynthesis.service.worker.attempt.MergeAcceptance;
import io.mergesynthesis.service.worker.store.ConflictLeases.LeasedRow;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.jdbi.v3.core.Handle;
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
    private final Clock clock;
    /** A provider that answered a create 429 is sent nothing until its wait is over. */
    private final Map<String, Instant> pausedUntil = new ConcurrentHashMap<>();

    BatchSender(BatchRows rows, LlmSettings llm, BatchClients clients, MergeAcceptance acceptance,
                BatchMetrics metrics, Clock clock) {
        this.clock = clock;
        this.rows = rows;
        this.metrics = metrics;
        this.llm = llm;
        this.clients = clients;
        this.acceptance = acceptance;
    }

    /** Sends one batch for each org with conflicts due in the batch lane; how many batches were created. */
    int sendWaiting() throws InterruptedException {
        int sent = 0;
        Map<String, Long> inFlight = new HashMap<>();
        Map<String, Long> enqueued = new HashMap<>();
        for (BatchRows.InFlight held : rows.inFlight()) {
            inFlight.merge(held.provider(), held.batches(), Long::sum);
            enqueued.merge(held.provider() + "/" + held.model(), held.inputTokens(), Long::sum);
        }
        for (UUID org : rows.orgsWithBatchWork(ORGS_PER_ROUND, llm.getBatch().getAutoAbove())) {
            SynthesisSettings settings = rows.orgSettings(org);
            String orgModel = settings.model();
            Optional<BatchRoute> route = BatchRoute.of(llm, orgModel);
            if (route.isEmpty()) {
                LOG.warn("org {} is in the batch lane, but its model {} has no configured provider or no price: its "
                        + "conflicts wait", org,
                        orgModel != null ? orgModel : llm.getPrimaryModel());
                continue;
            }
            String provider = route.get().provider();
            Instant paused = pausedUntil.get(provider);
            if (paused != null && clock.instant().isBefore(paused)) {
                continue;
            }
            if (inFlight.getOrDefault(provider, 0L) >= llm.getBatch().getMaxInFlight()) {
                LOG.debug("'{}' holds {} batches of this deployment, its most: org {} waits for one to be done",
                        provider, inFlight.get(provider), org);
                continue;
            }
            Long queue = llm.getBatch().getEnqueuedTokens().get(route.get().qualifiedModel());
            long queueRoom = queue == null ? Long.MAX_VALUE : queue - enqueued.getOrDefault(
                    route.get().qualifiedModel(), 0L);
            if (queueRoom <= 0) {
                LOG.debug("'{}' holds its most enqueued tokens of this deployment: org {} waits for a batch to be "
                        + "done", route.get().qualifiedModel(), org);
                continue;
            }
            long tokens = send(org, settings.lane(), route.get(), queueRoom);
            if (tokens >= 0) {
                inFlight.merge(provider, 1L, Long::sum);
                enqueued.merge(route.get().qualifiedModel(), tokens, Long::sum);
                sent++;
            }
        }
        return sent;
    }

    /** A batch opened, sized and reserved, not yet sent: its requests and the input tokens they hold. */
    private record Opened(UUID id, List<ProviderBatches.Request> requests, long inputTokens) {
    }

    boolean send(UUID org, Lane lane, BatchRoute route) throws InterruptedException {
        return send(org, lane, route, Long.MAX_VALUE) >= 0;
    }

    /**
     * Sends one batch of the org's waiting conflicts, holding at most {@code queueRoom} input tokens (beyond its
     * first request).
     *
     * @return the input tokens of the batch sent; -1 when none was
     */
    long send(UUID org, Lane lane, BatchRoute route, long queueRoom) throws InterruptedException {
        Optional<Opened> opened = rows.underOrgBudget(org, handle -> open(handle, org, lane, route, queueRoom));
        if (opened.isEmpty()) {
            return -1;
        }
        UUID batch = opened.get().id();
        List<ProviderBatches.Request> requests = opened.get().requests();
        try {
            ProviderBatches.Batch created = clients.of(route).create(batch.toString(), requests);
            rows.recordSent(org, batch, created.id(), llm.getBatch().getPollInterval());
            metrics.batch(route.provider(), BatchMetrics.SENT);
            LOG.info("sent batch {} of org {} to '{}' as {}: {} requests", batch, org, route.provider(),
                    created.id(), requests.size());
            return opened.get().inputTokens();
        } catch (ProviderBatches.Failed e) {
            metrics.batch(route.provider(), BatchMetrics.CREATE_FAILED);
            if (e.status() / 100 == 4) {
                // Refused outright: the provider made no batch, so its conflicts may wait again at once, and a
                // 429's wait is kept before this provider is sent another.
                refused(org, batch, route, e);
                return -1;
            }
            LOG.warn("the create of batch {} of org {} at '{}' got no usable answer ({}); its poller looks for it "
                    + "at the provider before anything is sent again", batch, org, route.provider(), e.getMessage());
            // It may well be in the provider's queue: counted there until its poller knows.
            return opened.get().inputTokens();
        }
    }

    /**
     * Opens a batch of the org's waiting conflicts, sized to what the org may still spend, and reserves its
     * expected cost, all in the transaction that holds the org's budget. Empty when nothing goes.
     */
    private Optional<Opened> open(Handle handle, UUID org, Lane lane, BatchRoute route, long queueRoom) {
        Optional<BigDecimal> room = BatchRows.budgetRoom(handle, org);
        if (room.isPresent() && room.get().signum() <= 0) {
            LOG.debug("org {} has spent or reserved its monthly budget: its batch lane sends nothing", org);
            return Optional.empty();
        }
        int limit = llm.getBatch().getMaxRequests();
        boolean wholeOrg = lane == Lane.BATCH;
        if (lane == Lane.AUTO) {
            // In batches while more than autoAbove wait: the oldest beyond that go, the rest stay interactive.
            long beyond = BatchRows.waiting(handle, org) - llm.getBatch().getAutoAbove();
            wholeOrg = beyond > 0;
            limit = wholeOrg ? (int) Math.min(limit, beyond) : limit;
        }
        UUID batch = UUID.randomUUID();
        List<BatchRows.Batched> batched = BatchRows.open(handle, batch, org, route.provider(), route.model(),
                limit, wholeOrg);
        if (batched.isEmpty()) {
            return Optional.empty();
        }
        List<ProviderBatches.Request> requests = new ArrayList<>();
        BigDecimal reserved = BigDecimal.ZERO;
        long bytes = 0;
        long tokens = 0;
        for (LeasedRow row : BatchRows.load(handle, batched.stream().map(BatchRows.Batched::conflictId).toList())) {
            ConflictSnapshot snapshot = acceptance.snapshotOrNull(row);
            // Sized to the budget: a request goes while what the batch is expected to cost is still within what
            // the org may spend, so that only the last one can take it over, and by no more than its own cost.
            if (snapshot == null || (room.isPresent() && reserved.compareTo(room.get()) >= 0)) {
                // Without a snapshot, its attempt in the interactive lane fails it the usual way, with the reason
                // on the conflict; beyond the budget, it waits for the next month or a higher budget.
                BatchRows.backToPending(handle, batch, row.id());
                continue;
            }
            ObjectNode params = body(route, snapshot);
            String text = params.toString();
            long size = text.getBytes(StandardCharsets.UTF_8).length;
            long input = TokenEstimate.of(text);
            if (!requests.isEmpty() && (bytes + size > llm.getBatch().getMaxBytes() || tokens + input > queueRoom)) {
                // Full by size, or by what the provider's queue may still take: the rest go in the org's next
                // batch, no attempt counted.
                BatchRows.backToPending(handle, batch, row.id());
                continue;
            }
            bytes += size;
            tokens += input;
            requests.add(new ProviderBatches.Request(new BatchCustomId(batch, row.id()).encoded(), params));
            reserved = reserved.add(expectedCost(route, input));
        }
        if (requests.isEmpty()) {
            // The row stays, done with nothing in it, so its id is never taken again.
            return Optional.empty();
        }
        BatchRows.reserve(handle, batch, requests.size(), reserved, tokens);
        return Optional.of(new Opened(batch, requests, tokens));
    }

    /** The request a single call in the route's protocol would send: a batch's request is that same body. */
    private ObjectNode body(BatchRoute route, ConflictSnapshot snapshot) {
        RequestPlan plan = new RequestPlan(route.settings().getMaxOutputTokens(), route.price().cacheFromTokens());
        return switch (route.type()) {
            case ANTHROPIC -> AnthropicProtocol.body(route.settings(), route.model(), prompt, snapshot, null, plan);
            case OPENAI -> OpenAiProtocol.body(route.settings(), route.model(), prompt, snapshot, null, plan);
        };
    }

    /** A create the provider refused: nothing was made, the conflicts wait again with no attempt counted. */
    private void refused(UUID org, UUID batch, BatchRoute route, ProviderBatches.Failed e) {
        int back = rows.closeRefused(org, batch);
        e.retryAfter().ifPresent(wait -> pausedUntil.put(route.provider(), clock.instant().plus(wait)));
        LOG.warn("the create of batch {} of org {} at '{}' was refused ({}); its {} conflicts wait again{}", batch,
                org, route.provider(), e.getMessage(), back,
                e.retryAfter().map(wait -> ", and nothing is sent there for " + wait).orElse(""));
    }

    /**
     * What a request is expected to cost at the batch price: its whole body read as input (more than the prompt's
     * tokens, so never less) and every output token it may write.
     */
    private static BigDecimal expectedCost(BatchRoute route, long inputTokens) {
        return route.price().batchCost(new Usage(inputTokens, route.settings().getMaxOutputTokens(), 0, 0));
    }
}
