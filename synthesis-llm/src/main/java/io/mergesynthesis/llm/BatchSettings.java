package io.mergesynthesis.llm;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The batch lane ({@code llm.batch}): how often a batch is polled, how many requests and bytes one batch holds, how
 * many batches a provider holds at once, and when an org in lane {@code auto} goes to batches.
 */
public final class BatchSettings {

    private Duration pollInterval = Duration.ofSeconds(30);
    private Duration pollHold = Duration.ofMinutes(1);
    private int autoAbove = 500;
    private int maxRequests = 1000;
    private long maxBytes = 64L * 1024 * 1024;
    private int maxInFlight = 20;
    private Map<String, Long> enqueuedTokens = new HashMap<>();

    /** How long a replica waits between two looks at a batch in progress. */
    public Duration getPollInterval() {
        return pollInterval;
    }

    @JsonDeserialize(using = DurationText.class)
    public void setPollInterval(Duration pollInterval) {
        this.pollInterval = pollInterval;
    }

    /**
     * How long a replica's hold on a batch it polls lasts unless renewed; it renews as it goes (before each call to
     * the provider, and while it stores results), so this bounds how long a batch waits after its poller died. At
     * least twice the longest provider request timeout is used, so that one call always fits in a hold.
     */
    public Duration getPollHold() {
        return pollHold;
    }

    @JsonDeserialize(using = DurationText.class)
    public void setPollHold(Duration pollHold) {
        this.pollHold = pollHold;
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

    /**
     * The most bytes of request bodies one batch holds: well below both providers' own limits (a few hundred
     * megabytes), so that a create is one request of a size any proxy passes.
     */
    public long getMaxBytes() {
        return maxBytes;
    }

    public void setMaxBytes(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /**
     * The most batches not yet done that one provider holds for this deployment: past it, nothing more is sent
     * there until one is done, so that a backlog queues here, where it can be canceled by a setting, rather than
     * at the provider.
     */
    public int getMaxInFlight() {
        return maxInFlight;
    }

    public void setMaxInFlight(int maxInFlight) {
        this.maxInFlight = maxInFlight;
    }

    /**
     * The most input tokens a model's batches not yet done may hold in its provider's queue, by
     * {@code provider/model}, where the provider states such a limit (OpenAI does, per model and tier); a model not
     * named has none. Counted from each request's estimate when its batch is sent.
     */
    public Map<String, Long> getEnqueuedTokens() {
        return enqueuedTokens;
    }

    public void setEnqueuedTokens(Map<String, Long> enqueuedTokens) {
        this.enqueuedTokens = enqueuedTokens == null ? new HashMap<>() : new HashMap<>(enqueuedTokens);
    }

    @Override
    public String toString() {
        return "BatchSettings{pollInterval=" + pollInterval + ", pollHold=" + pollHold + ", autoAbove=" + autoAbove
                + ", maxRequests=" + maxRequests + ", maxBytes=" + maxBytes + ", maxInFlight=" + maxInFlight
                + ", enqueuedTokens=" + enqueuedTokens + "}";
    }
}
