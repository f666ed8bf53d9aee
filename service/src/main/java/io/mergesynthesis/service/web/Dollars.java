package io.mergesynthesis.service.web;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * US dollar amounts as pages show them: cents from a dollar up; below a dollar up to four decimals, so that
 * single provider calls (often a fraction of a cent) do not all read as $0.00 or $0.01.
 */
final class Dollars {

    private Dollars() {
    }

    static String usd(BigDecimal amount) {
        if (amount == null) {
            return null;
        }
        if (amount.abs().compareTo(BigDecimal.ONE) < 0) {
            BigDecimal fine = amount.setScale(4, RoundingMode.HALF_UP).stripTrailingZeros();
            return "$" + (fine.scale() < 2 ? fine.setScale(2, RoundingMode.UNNECESSARY) : fine).toPlainString();
        }
        return "$" + amount.setScale(2, RoundingMode.HALF_UP).toPlainString();
    }
}
