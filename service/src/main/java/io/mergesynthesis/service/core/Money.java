package io.mergesynthesis.service.core;

import java.math.BigDecimal;

/** Amounts of US dollars as people read them: 0.0021 and 3, not 0.002100000 and 3.00 (columns keep more). */
public final class Money {

    private Money() {
    }

    /** {@code amount} without trailing zeros, and never in exponent form; null stays null. */
    public static BigDecimal readable(BigDecimal amount) {
        if (amount == null) {
            return null;
        }
        BigDecimal stripped = amount.stripTrailingZeros();
        return stripped.scale() < 0 ? stripped.setScale(0) : stripped;
    }
}
