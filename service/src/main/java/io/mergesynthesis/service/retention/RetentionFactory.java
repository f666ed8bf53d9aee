package io.mergesynthesis.service.retention;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.OptionalInt;

/**
 * How long the event stream, the usage ledger and the attempt history are kept, by whole months
 * (docs/adr/0049), and how the replicas keep their monthly partitions ahead of time.
 */
public class RetentionFactory {

    /**
     * Months kept: a month's partitions are dropped once the month ended more than this many months ago. Left
     * out (the default), every month is kept. Under two is refused, so that the month just ended is never dropped
     * while late readers and budgets may still want it.
     */
    @Min(value = 2, message = "must be at least 2 (the current month and the one before are always kept whole), "
            + "or left out to keep every month")
    private Integer months;

    /** How many months ahead of the current one each replica makes sure partitions exist. */
    @Min(1)
    @Max(24)
    private int monthsAhead = 3;

    /** How often each replica runs the upkeep after the run at its start. */
    @NotNull
    private Duration upkeepInterval = Duration.days(1);

    /** The months kept, or empty when every month is kept. */
    public OptionalInt keptMonths() {
        return months == null ? OptionalInt.empty() : OptionalInt.of(months);
    }

    @JsonProperty
    public Integer getMonths() {
        return months;
    }

    @JsonProperty
    public void setMonths(Integer months) {
        this.months = months;
    }

    @JsonProperty
    public int getMonthsAhead() {
        return monthsAhead;
    }

    @JsonProperty
    public void setMonthsAhead(int monthsAhead) {
        this.monthsAhead = monthsAhead;
    }

    @JsonProperty
    public Duration getUpkeepInterval() {
        return upkeepInterval;
    }

    @JsonProperty
    public void setUpkeepInterval(Duration upkeepInterval) {
        this.upkeepInterval = upkeepInterval;
    }
}
