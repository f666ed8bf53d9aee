package io.mergesynthesis.service.ingest;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.DataSize;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

/** Limits on what one ingest request may carry. */
public class IngestFactory {

    @Min(1)
    @Max(10_000)
    private int maxBatchSize = 500;

    private DataSize maxBodySize = DataSize.mebibytes(2);

    @JsonProperty
    public int getMaxBatchSize() {
        return maxBatchSize;
    }

    @JsonProperty
    public void setMaxBatchSize(int maxBatchSize) {
        this.maxBatchSize = maxBatchSize;
    }

    @JsonProperty
    public DataSize getMaxBodySize() {
        return maxBodySize;
    }

    @JsonProperty
    public void setMaxBodySize(DataSize maxBodySize) {
        this.maxBodySize = maxBodySize;
    }
}
