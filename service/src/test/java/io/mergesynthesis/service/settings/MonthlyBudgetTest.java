package io.mergesynthesis.service.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

/** The one budget rule, as both the API (a JSON number) and the operator page (typed text) apply it. */
class MonthlyBudgetTest {

    @Test
    void trailingZerosAreNotDecimalPlacesThatCount() {
        assertThat(MonthlyBudget.problem(new BigDecimal("12.5000000"))).isNull();
        assertThat(MonthlyBudget.problem(new BigDecimal("0.0000010"))).isNull();
        assertThat(MonthlyBudget.parse("12.5000000")).isEqualByComparingTo("12.5");
    }

    @Test
    void aSeventhDecimalThatIsNotZeroIsRefusedSayingSo() {
        assertThat(MonthlyBudget.problem(new BigDecimal("0.0000001"))).isEqualTo("has more than 6 decimal places");
        assertThatThrownBy(() -> MonthlyBudget.parse("1.1234567")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theRangeIsZeroToOneBillionDollars() {
        assertThat(MonthlyBudget.problem(BigDecimal.ZERO)).isNull();
        assertThat(MonthlyBudget.problem(new BigDecimal("1000000000"))).isNull();
        assertThat(MonthlyBudget.problem(new BigDecimal("1000000000.000001")))
                .isEqualTo("must be from 0 to 1000000000 (got 1000000000.000001)");
        assertThat(MonthlyBudget.problem(new BigDecimal("-1"))).isEqualTo("must be from 0 to 1000000000 (got -1)");
    }
}
