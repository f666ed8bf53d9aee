package io.mergesynthesis.service.settings;

import java.math.BigDecimal;

/**
 * The one rule for an org's monthly budget, whether it comes from the API or the operator page: US dollars from
 * 0 to {@link #MAX_USD}, with at most six decimal places (the column's scale). Trailing zeros are not decimal
 * places that matter: {@code 12.5000000} is the budget {@code 12.5}, and is accepted.
 */
public final class MonthlyBudget {

    /** The largest budget accepted: far above any real one, well inside the column's range; more is a typo. */
    public static final BigDecimal MAX_USD = new BigDecimal("1000000000");

    /** The decimal places the column keeps. */
    public static final int DECIMALS = 6;

    private MonthlyBudget() {
    }

    /** What is wrong with a budget, in words that follow the field's name; null when it is acceptable. */
    public static String problem(BigDecimal budget) {
        if (budget.signum() < 0 || budget.compareTo(MAX_USD) > 0) {
            return "must be from 0 to " + MAX_USD.toPlainString() + " (got " + budget.toPlainString() + ")";
        }
        if (budget.stripTrailingZeros().scale() > DECIMALS) {
            return "has more than " + DECIMALS + " decimal places";
        }
        return null;
    }

    /**
     * A budget typed into a form: empty means no budget.
     *
     * @throws IllegalArgumentException when the text is not a number, or the number breaks the rule
     */
    public static BigDecimal parse(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        BigDecimal value;
        try {
            value = new BigDecimal(text.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a number", e);
        }
        String problem = problem(value);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        return value;
    }
}
