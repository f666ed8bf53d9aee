package io.mergesynthesis.service.worker.drill;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.NotNull;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/** Fault injection for drills ({@code synthesis.faults.*}); everything off by default. */
public class FaultsFactory {

    @DecimalMin("0.0")
    @DecimalMax("1.0")
    private double failureRate = 0;

    @DecimalMin("0.0")
    @DecimalMax("1.0")
    private double hangRate = 0;

    /** Added to every call before the synthesizer runs, to imitate a slow model; zero (off) by default. */
    @NotNull
    private Duration latency = Duration.milliseconds(0);

    /** A regular expression searched for in each conflict's target; matching conflicts always fail. */
    private String alwaysFailTargets;

    /** A file that gets a line at the start and end of every synthesizer call; unset (off) by default. */
    private String callLog;

    @JsonProperty
    public double getFailureRate() {
        return failureRate;
    }

    @JsonProperty
    public void setFailureRate(double failureRate) {
        this.failureRate = failureRate;
    }

    @JsonProperty
    public double getHangRate() {
        return hangRate;
    }

    @JsonProperty
    public void setHangRate(double hangRate) {
        this.hangRate = hangRate;
    }

    @JsonProperty
    public Duration getLatency() {
        return latency;
    }

    @JsonProperty
    public void setLatency(Duration latency) {
        this.latency = latency;
    }

    @JsonProperty
    public String getAlwaysFailTargets() {
        return alwaysFailTargets;
    }

    @JsonProperty
    public void setAlwaysFailTargets(String alwaysFailTargets) {
        this.alwaysFailTargets = alwaysFailTargets;
    }

    @JsonProperty
    public String getCallLog() {
        return callLog;
    }

    @JsonProperty
    public void setCallLog(String callLog) {
        this.callLog = callLog;
    }

    /**
     * {@code synthesizer} with everything configured here around it: the faults ({@link #wrap}) and, outside
     * them, the call journal ({@link #journal}), so that the journal sees the calls as the worker makes them.
     */
    public MergeSynthesizer around(MergeSynthesizer synthesizer, String replica, Clock clock) {
        return journal(wrap(synthesizer), replica, clock);
    }

    /** {@code synthesizer} wrapped in a {@link CallJournal} when {@code callLog} is set, else itself. */
    public MergeSynthesizer journal(MergeSynthesizer synthesizer, String replica, Clock clock) {
        if (callLog == null || callLog.isBlank()) {
            return synthesizer;
        }
        return CallJournal.open(synthesizer, replica, clock, Path.of(callLog));
    }

    public boolean anyEnabled() {
        return latency.toMilliseconds() > 0 || failureRate > 0 || hangRate > 0 || (alwaysFailTargets != null && !alwaysFailTargets.isEmpty());
    }

    /** {@code synthesizer} itself when no fault is configured, else a wrapper that injects them. */
    public MergeSynthesizer wrap(MergeSynthesizer synthesizer) {
        if (!anyEnabled()) {
            return synthesizer;
        }
        if (failureRate + hangRate > 1) {
            throw new IllegalArgumentException("synthesis.faults.failureRate (" + failureRate
                    + ") and synthesis.faults.hangRate (" + hangRate + ") together exceed 1");
        }
        Optional<Pattern> targets;
        try {
            targets = alwaysFailTargets == null || alwaysFailTargets.isEmpty()
                    ? Optional.empty() : Optional.of(Pattern.compile(alwaysFailTargets));
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("synthesis.faults.alwaysFailTargets is not a regular expression: "
                    + e.getMessage(), e);
        }
        MergeSynthesizer delayed = latency.toMilliseconds() > 0
                ? new DelayedSynthesizer(synthesizer, latency.toJavaDuration()) : synthesizer;
        if (failureRate == 0 && hangRate == 0 && targets.isEmpty()) {
            return delayed;
        }
        return new FaultInjectingSynthesizer(delayed, failureRate, hangRate, targets,
                () -> ThreadLocalRandom.current().nextDouble());
    }
}
