package io.mergesynthesis.service.worker;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;

/** The worker pool's settings ({@code synthesis.*}). */
public class SynthesisFactory {

    private boolean enabled = true;

    @Min(1)
    private int workers = 4;

    @NotEmpty
    private String synthesizer = "stub";

    @JsonProperty
    public boolean isEnabled() {
        return enabled;
    }

    @JsonProperty
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    @JsonProperty
    public int getWorkers() {
        return workers;
    }

    @JsonProperty
    public void setWorkers(int workers) {
        this.workers = workers;
    }

    @JsonProperty
    public String getSynthesizer() {
        return synthesizer;
    }

    @JsonProperty
    public void setSynthesizer(String synthesizer) {
        this.synthesizer = synthesizer;
    }
}
