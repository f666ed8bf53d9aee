package io.mergesynthesis.service.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.mergesynthesis.service.ingest.ConflictIntake.Ingested;
import java.util.List;
import java.util.UUID;

/** What ingest did with one report: {@code created} is false when the conflict already existed. */
public record IngestResult(
        @JsonProperty("id") UUID id,
        @JsonProperty("org_id") UUID orgId,
        @JsonProperty("dedup_key") String dedupKey,
        @JsonProperty("created") boolean created) {

    public static IngestResult of(Ingested ingested) {
        return new IngestResult(ingested.id(), ingested.orgId(), ingested.dedupKey(), ingested.created());
    }

    /** The answer to a batch: one result per report, in request order, and the totals. */
    public record Batch(
            @JsonProperty("results") List<IngestResult> results,
            @JsonProperty("created") long created,
            @JsonProperty("existing") long existing) {

        public static Batch of(List<Ingested> ingested) {
            long created = ingested.stream().filter(Ingested::created).count();
            return new Batch(ingested.stream().map(IngestResult::of).toList(), created, ingested.size() - created);
        }
    }
}
