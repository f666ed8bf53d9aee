package io.mergesynthesis.llm;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import java.time.Duration;

/**
 * The batch lane ({@code llm.batch}): how often a batch is polled, how many requests one batch holds, and when an
 * org in lane {@code auto} goes to batches.
 */
public final class BatchSettings {

    private Duration pollInterval = Duration.ofSeconds(30);
    private int autoAbove = 500;
    private int maxRequests = 1000;

    /** How long a replica waits between two looks at a batch in progress. */
    public Duration getPollInterval() {
        return pollInterval;
    }

    @JsonDeserialize(using = DurationText.class)
    public void setPollInterval(Duration pollInterval) {
        this.pollInterval = pollInterval;
    }

    /** An org in lane auto sends its conflicts in batches while more than this many of them wait. */
    public int getAutoAbove() {
        return autoAbove;
    }

    public void setAutoAbove(int autoAbove) {
        this.autoAbove = autoAbove;
    }

    /** The most requests one batch holds; far below either provider's own limit, so that a batch ends sooner. */
    public int getMaxRequests() {
        return maxRequests;
    }

    public void setMaxRequests(int maxRequests) {
        this.maxRequests = maxRequests;
    }

    @Override
    public String toString() {
        return "BatchSettings{pollInterval=" + pollInterval + ", autoAbove=" + autoAbove + ", maxRequests="
                + maxRequests + "}";
    }
}
