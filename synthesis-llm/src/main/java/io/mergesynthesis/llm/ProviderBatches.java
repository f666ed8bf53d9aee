package io.mergesynthesis.llm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.llm.anthropic.AnthropicBatches;
import io.mergesynthesis.llm.openai.OpenAiBatches;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A provider's batch API in the terms the batch lane needs, whichever protocol it speaks: create, retrieve, list,
 * read the results of, and cancel a batch. Each method is one exchange with the provider (two or three where the
 * protocol needs them, as OpenAI's upload before its create) and says nothing about what the caller should do with
 * a failure: a create whose answer was lost may still have made a batch, and only the caller's own record can tell.
 *
 * <p>Failures name the request and the status, never a body: what is sent and answered can hold customer policy
 * text. The key is in no message.
 */
public interface ProviderBatches {

    /** One request: its custom_id and the body a single call of this protocol would send. */
    record Request(String customId, ObjectNode body) {

        public Request {
            Objects.requireNonNull(customId, "customId");
            Objects.requireNonNull(body, "body");
        }
    }

    /** Where a batch is, in the three stages both protocols share. */
    enum Stage { IN_PROGRESS, CANCELING, ENDED }

    /**
     * A batch as the provider describes it.
     *
     * @param ownId          our batch id as the provider holds it (OpenAI's metadata {@code merge_synthesis_batch}),
     *                       null where the protocol carries none (Anthropic)
     * @param providerStatus the provider's own word for the stage ({@code processing_status} or {@code status})
     * @param resultsAt      where the results are read once ended: Anthropic's {@code results_url}; OpenAI's output
     *                       file id, then its error file id (either may be null); empty before there are any
     */
    record Batch(String id, Stage stage, Instant createdAt, String ownId, String providerStatus,
                 List<String> resultsAt) {

        public Batch {
            resultsAt = resultsAt == null ? List.of() : java.util.Collections.unmodifiableList(
                    new java.util.ArrayList<>(resultsAt));
        }

        /** A batch described by its first four fields alone, as a caller that made it up would. */
        public Batch(String id, Stage stage, Instant createdAt, String ownId) {
            this(id, stage, createdAt, ownId, null, List.of());
        }

        public boolean ended() {
            return stage == Stage.ENDED;
        }
    }

    /** One page of the list, newest first; {@code lastId} is where the next page starts after. */
    record Page(List<Batch> batches, boolean hasMore, String lastId) {
    }

    /** What became of one request. */
    enum Outcome { SUCCEEDED, ERRORED, EXPIRED, CANCELED }

    /**
     * One result line.
     *
     * @param answer for {@link Outcome#SUCCEEDED}, the body a single call would have been answered with
     *               (Anthropic: {@code result.message}; OpenAI: {@code response.body}); null otherwise
     * @param error  a short provider error type or code for {@link Outcome#ERRORED}, else null
     */
    record Result(String customId, Outcome outcome, JsonNode answer, String error) {
    }

    /** The provider could not be asked, or answered other than 2xx. */
    final class Failed extends Exception {

        private final int status;
        private final Duration retryAfter;

        public Failed(String message, int status, Duration retryAfter) {
            super(message);
            this.status = status;
            this.retryAfter = retryAfter;
        }

        public Failed(String message, int status) {
            this(message, status, null);
        }

        /** The HTTP status, or 0 when there was no answer. */
        public int status() {
            return status;
        }

        /** What a 429's {@code retry-after} asked for; empty for any other failure. */
        public Optional<Duration> retryAfter() {
            return Optional.ofNullable(retryAfter);
        }
    }

    /**
     * Creates a batch of {@code requests}; the provider's batch.
     *
     * @param ownId our batch id, kept by a protocol that can carry it ({@link #carriesOwnId()}); may be null
     */
    Batch create(String ownId, List<Request> requests) throws Failed, InterruptedException;

    /** The batch as it stands now. */
    Batch retrieve(String id) throws Failed, InterruptedException;

    /** Newest first, starting after {@code afterId} (null: the newest). */
    Page list(String afterId, int limit) throws Failed, InterruptedException;

    /**
     * The results of an ended batch, read as they arrive (a result file may be larger than memory), in any order:
     * key on the custom_id. OpenAI: the output file, then the error file. A batch the provider refused as a whole
     * (OpenAI's {@code failed}) has none, and its stream is empty. Close the stream.
     */
    Stream<Result> results(Batch batch) throws Failed, InterruptedException;

    /** Asks the provider to cancel; the batch as it stands after. */
    Batch cancel(String id) throws Failed, InterruptedException;

    /** Whether a listed batch names its own id ({@link Batch#ownId()}), so an unanswered create is recognised without reading results. */
    boolean carriesOwnId();

    /** The batch client of the provider's protocol. */
    static ProviderBatches of(ProviderSettings provider) {
        ProviderType type = Objects.requireNonNull(provider.getType(), "the provider has no type");
        return switch (type) {
            case ANTHROPIC -> new AnthropicBatches(provider);
            case OPENAI -> new OpenAiBatches(provider);
        };
    }
}
