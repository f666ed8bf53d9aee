package io.mergesynthesis.service.worker.batch;

import io.mergesynthesis.llm.ProviderBatches;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Finds at the provider a batch whose create went unanswered: the batches created since the row was written are
 * listed, newest first. OpenAI's batches carry the row's id in their metadata, so each one listed is recognised at
 * once. Anthropic's carry no metadata and its create takes no idempotency key, so each one ended is recognised by
 * the batch row's id in its custom_ids; a batch still in progress cannot be read yet, and while one may be ours,
 * nothing is decided and nothing is sent again.
 */
final class BatchAdoption {

    /** How far the provider's clock may stand from ours when comparing creation times. */
    static final Duration CLOCK_SKEW = Duration.ofMinutes(10);
    private static final int PAGE = 100;

    /** What the provider's list says of a batch row without a provider id. */
    sealed interface Finding {
    }

    /** The provider made it: this is it. */
    record Found(ProviderBatches.Batch batch) implements Finding {
    }

    /** Some batch created since is still in progress and may be it: ask again later. */
    record Undecided() implements Finding {
    }

    /** No batch created since is it: the create never reached the provider. */
    record Absent() implements Finding {
    }

    Finding find(BatchRow row, ProviderBatches client, PollHold hold)
            throws ProviderBatches.Failed, InterruptedException {
        Instant since = row.createdAt().minus(CLOCK_SKEW);
        boolean undecided = false;
        String after = null;
        ProviderBatches.Page page;
        do {
            hold.renew();
            page = client.list(after, PAGE);
            for (ProviderBatches.Batch batch : page.batches()) {
                if (batch.createdAt() != null && batch.createdAt().isBefore(since)) {
                    return undecided ? new Undecided() : new Absent();
                }
                if (client.carriesOwnId()) {
                    if (row.id().toString().equals(batch.ownId())) {
                        return new Found(batch);
                    }
                } else if (!batch.ended()) {
                    undecided = true;
                } else if (renewed(hold) && carriesRow(client, batch, row)) {
                    return new Found(batch);
                }
            }
            after = page.lastId();
        } while (page.hasMore() && after != null);
        return undecided ? new Undecided() : new Absent();
    }

    /** Renews the hold before a call to the provider; true, so that it reads within a condition. */
    private static boolean renewed(PollHold hold) {
        hold.renew();
        return true;
    }

    /** Every custom_id of a batch carries its row's id, so the first result line tells. */
    private static boolean carriesRow(ProviderBatches client, ProviderBatches.Batch batch, BatchRow row)
            throws ProviderBatches.Failed, InterruptedException {
        try (Stream<ProviderBatches.Result> results = client.results(batch)) {
            Optional<ProviderBatches.Result> first = results.findFirst();
            return first.flatMap(result -> BatchCustomId.decode(result.customId()))
                    .filter(id -> id.batchId().equals(row.id())).isPresent();
        }
    }
}
