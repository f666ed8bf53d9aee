package io.mergesynthesis.llm;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code llm.circuit:} block: when a provider counts as down, and how often it is probed while it is.
 * The defaults open after five different conflicts in a row met an outage-like failure, probe one second later,
 * and double the wait after each failed probe up to fifteen seconds: four calls a minute to a provider that
 * stays down, and a recovery noticed within fifteen seconds.
 */
public final class CircuitSettings {

    private int openAfter = 5;
    private Duration firstProbeAfter = Duration.ofSeconds(1);
    private Duration maxProbeInterval = Duration.ofSeconds(15);

    List<String> problems() {
        List<String> problems = new ArrayList<>();
        if (openAfter < 2) {
            // One conflict failing alone must never look like an outage, or its failures would never count.
            problems.add("llm.circuit.openAfter is " + openAfter + ": at least 2 different conflicts");
        }
        if (firstProbeAfter == null || firstProbeAfter.isNegative() || firstProbeAfter.isZero()) {
            problems.add("llm.circuit.firstProbeAfter must be a positive duration");
        }
        if (maxProbeInterval == null || firstProbeAfter != null && maxProbeInterval.compareTo(firstProbeAfter) < 0) {
            problems.add("llm.circuit.maxProbeInterval must be at least llm.circuit.firstProbeAfter");
        }
        return problems;
    }

    /** How many different conflicts in a row must meet an outage-like failure before the circuit opens. */
    public int getOpenAfter() {
        return openAfter;
    }

    public void setOpenAfter(int openAfter) {
        this.openAfter = openAfter;
    }

    /** The wait from opening to the first probe; each failed probe doubles it. */
    public Duration getFirstProbeAfter() {
        return firstProbeAfter;
    }

    @JsonDeserialize(using = DurationText.class)
    public void setFirstProbeAfter(Duration firstProbeAfter) {
        this.firstProbeAfter = firstProbeAfter;
    }

    /** The longest wait between probes of a provider that stays down. */
    public Duration getMaxProbeInterval() {
        return maxProbeInterval;
    }

    @JsonDeserialize(using = DurationText.class)
    public void setMaxProbeInterval(Duration maxProbeInterval) {
        this.maxProbeInterval = maxProbeInterval;
    }

    @Override
    public String toString() {
        return "CircuitSettings{openAfter=" + openAfter + ", firstProbeAfter=" + firstProbeAfter
                + ", maxProbeInterval=" + maxProbeInterval + "}";
    }
}
