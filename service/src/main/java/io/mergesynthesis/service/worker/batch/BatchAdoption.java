package io.mergesynthesis.service.worker.batch;

import com.fasterxml.jackson.databind.JsonNode;
import io.mergesynthesis.llm.anthropic.AnthropicBatches;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Finds at the provider a batch whose create went unanswered. Anthropic's batches carry no metadata and its
 * create takes no idempotency key, so the batches created since the row was written are listed, newest first,
 * and each one ended is recognised by the batch row's id in its custom_ids. A batch still in progress cannot be
 * read yet: while one may be ours, nothing is decided and nothing is sent again.
 */
final class BatchAdoption {

    /** How far the provider's clock may stand from ours when comparing creation times. */
    static final Duration CLOCK_SKEW = Duration.ofMinutes(10);
    private static final int PAGE = 100;

    /** What the provider's list says of a batch row without a provider id. */
    sealed interface Finding {
    }

    /** The provider made it: this is it. */
    record Found(AnthropicBatches.Batch batch) implements Finding {
    }

    /** Some batch created since is still in progress and may be it: ask again later. */
    record Undecided() implements Finding {
    }

    /** No batch created since is it: the create never reached the provider. */
    record Absent() implements Finding {
    }

    Finding find(BatchRow row, AnthropicBatches client) throws AnthropicBatches.Failed, InterruptedException {
        Instant since = row.createdAt().minus(CLOCK_SKEW);
        boolean undecided = false;
        String after = null;
        AnthropicBatches.Page page;
        do {
            page = client.list(after, PAGE);
            for (AnthropicBatches.Batch batch : page.batches()) {
                if (batch.createdAt() != null && batch.createdAt().isBefore(since)) {
                    return undecided ? new Undecided() : new Absent();
                }
                if (!batch.ended()) {
                    undecided = true;
                } else if (carriesRow(client, batch, row)) {
                    return new Found(batch);
                }
            }
            after = page.lastId();
        } while (page.hasMore() && after != null);
        return undecided ? new Undecided() : new Absent();
    }

    /** Every custom_id of a batch carries its row's id, so the first result line tells. */
    private static boolean carriesRow(AnthropicBatches client, AnthropicBatches.Batch batch, BatchRow row)
            throws AnthropicBatches.Failed, InterruptedException {
        try (Stream<JsonNode> results = client.results(batch)) {
            Optional<JsonNode> first = results.findFirst();
            return first.flatMap(line -> BatchCustomId.decode(line.path("custom_id").asText(null)))
                    .filter(id -> id.batchId().equals(row.id())).isPresent();
        }
    }
}
