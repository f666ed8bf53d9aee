package io.mergesynthesis.llm;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code llm.circuit:} block: how often a provider found down is probed. The defaults probe one second after
 * the circuit opened and double the wait after each failed probe up to fifteen seconds: four calls a minute to a
 * provider that stays down, and a recovery noticed within fifteen seconds.
 */
public final class CircuitSettings {

    private Integer openAfter;
    private Duration firstProbeAfter = Duration.ofSeconds(1);
    private Duration maxProbeInterval = Duration.ofSeconds(15);

    List<String> problems() {
        List<String> problems = new ArrayList<>();
        if (firstProbeAfter == null || firstProbeAfter.isNegative() || firstProbeAfter.isZero()) {
            problems.add("llm.circuit.firstProbeAfter must be a positive duration");
        }
        if (maxProbeInterval == null || firstProbeAfter != null && maxProbeInterval.compareTo(firstProbeAfter) < 0) {
            problems.add("llm.circuit.maxProbeInterval must be at least llm.circuit.firstProbeAfter");
        }
        return problems;
    }

    /**
     * No longer used: the circuit opens at a conflict's outage-like failure unless the provider has answered a call
     * let out after that conflict's previous one. Still read, so that a configuration written for earlier versions
     * starts; {@link #ignoredOpenAfter()} says it is ignored.
     */
    @Deprecated
    public void setOpenAfter(int openAfter) {
        this.openAfter = openAfter;
    }

    /** The {@code openAfter} a configuration still sets, which the circuit no longer uses. */
    Integer ignoredOpenAfter() {
        return openAfter;
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
        return "CircuitSettings{firstProbeAfter=" + firstProbeAfter
                + ", maxProbeInterval=" + maxProbeInterval + "}";
    }
}
