package io.mergesynthesis.llm;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

class ModelPriceTest {

    @Test
    void costIsTokensTimesPricesOverAMillionExactly() {
        ModelPrice price = Fixtures.price("3", "15");

        assertThat(price.cost(new Usage(1234, 567, 0, 0))).isEqualTo(new BigDecimal("0.012207"));
        assertThat(price.cost(new Usage(1, 0, 0, 0))).isEqualTo(new BigDecimal("0.000003"));
        assertThat(price.cost(Usage.NONE)).isEqualByComparingTo(BigDecimal.ZERO);
    }

    @Test
    void cachePricesDefaultToATenthAndOneAndAQuarterOfInput() {
        ModelPrice price = Fixtures.price("3", "15");

        assertThat(price.effectiveCacheRead()).isEqualByComparingTo("0.3");
        assertThat(price.effectiveCacheWrite()).isEqualByComparingTo("3.75");
        // 100 x 3 + 10 x 15 + 1000 x 0.3 + 200 x 3.75 = 1500 per million
        assertThat(price.cost(new Usage(100, 10, 1000, 200))).isEqualTo(new BigDecimal("0.0015"));
    }

    @Test
    void explicitCachePricesWin() {
        ModelPrice price = Fixtures.price("1.25", "10");
        price.setCacheReadPerMillionUsd(new BigDecimal("0.625"));
        price.setCacheWritePerMillionUsd(BigDecimal.ZERO);

        assertThat(price.cost(new Usage(0, 0, 1_000_000, 1_000_000))).isEqualByComparingTo("0.625");
    }

    @Test
    void fractionalPricesStayExact() {
        ModelPrice price = Fixtures.price("0.15", "0.6");

        assertThat(price.cost(new Usage(333, 77, 0, 0))).isEqualTo(new BigDecimal("0.00009615"));
    }
}
