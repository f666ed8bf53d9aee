package io.mergesynthesis.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PercentilesTest {

    @Test
    void nearestRankOverOneHundredSamples() {
        double[] samples = new double[100];
        for (int i = 0; i < 100; i++) {
            samples[i] = 100 - i; // 100 down to 1, unsorted on purpose
        }
        Percentiles p = new Percentiles(samples);
        assertThat(p.at(50)).isEqualTo(50);
        assertThat(p.at(99)).isEqualTo(99);
        assertThat(p.at(100)).isEqualTo(100);
    }

    @Test
    void aSingleSampleIsEveryPercentile() {
        Percentiles p = new Percentiles(new double[] {7});
        assertThat(p.at(50)).isEqualTo(7);
        assertThat(p.at(99)).isEqualTo(7);
    }
}
