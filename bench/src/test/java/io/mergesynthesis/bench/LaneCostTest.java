package io.mergesynthesis.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

class LaneCostTest {

    @Test
    void perThousandMergesCountsEveryCallOverTheMergesStored() {
        // 1,010 calls of which 1,000 merged, 2.613 USD in all: the ten that failed are paid for by the merges.
        LaneCost interactive = new LaneCost(1_010, 1_000, 1_517_020, 224_220, new BigDecimal("2.613"));
        assertThat(interactive.usdPerThousandMerges()).isCloseTo(2.613, within(1e-9));
        assertThat(interactive.callsPerMerge()).isCloseTo(1.01, within(1e-9));
        assertThat(interactive.inputTokensPerMerge()).isCloseTo(1_517.02, within(1e-9));
        assertThat(interactive.outputTokensPerMerge()).isCloseTo(224.22, within(1e-9));
    }

    @Test
    void theRatioIsThisLanesCostPerMergeOverTheOthers() {
        LaneCost interactive = new LaneCost(10_000, 10_000, 15_000_000, 2_220_000, new BigDecimal("26.10"));
        // Half the merges for a quarter of the dollars: half the price a merge.
        LaneCost batch = new LaneCost(5_000, 5_000, 7_500_000, 1_110_000, new BigDecimal("6.525"));
        assertThat(batch.usdPerThousandMerges()).isCloseTo(1.305, within(1e-9));
        assertThat(batch.costRatioTo(interactive)).isCloseTo(0.5, within(1e-9));
    }

    @Test
    void noMergeStoredSaysSoRatherThanDividingByZero() {
        LaneCost none = new LaneCost(3, 0, 4_500, 0, BigDecimal.ZERO);
        assertThatThrownBy(none::usdPerThousandMerges).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no merge stored");
    }
}
