package io.mergesynthesis.service.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.mergesynthesis.service.ingest.ConflictIntake.Outcome;
import java.util.List;
import java.util.UUID;

/** What ingest did with one report: {@code created} is false when the conflict already existed. */
public record IngestResult(
        @JsonProperty("id") UUID id,
        @JsonProperty("org_id") UUID orgId,
        @JsonProperty("dedup_key") String dedupKey,
        @JsonProperty("created") boolean created) {

    public static IngestResult of(Outcome outcome) {
        return new IngestResult(outcome.id(), outcome.orgId(), outcome.dedupKey(), outcome.created());
    }

    /** The answer to a batch: one result per report, in request order, and the totals. */
    public record Batch(
            @JsonProperty("results") List<IngestResult> results,
            @JsonProperty("created") long created,
            @JsonProperty("existing") long existing) {

        public static Batch of(List<Outcome> outcomes) {
            long created = outcomes.stream().filter(Outcome::created).count();
            return new Batch(outcomes.stream().map(IngestResult::of).toList(), created, outcomes.size() - created);
        }
    }
}
