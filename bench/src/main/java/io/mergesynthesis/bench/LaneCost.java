package io.mergesynthesis.bench;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

/**
 * What one org's drain through one lane cost, as the usage ledger has it ({@code llm_usage_events}, one row per
 * paid call, with its lane, its tokens and its cost at the price of that lane): the calls, the merges stored, the
 * tokens and the dollars, and from them the figures per merge and per 1,000 merges. Nothing is computed from the
 * configured prices; the ledger's own {@code cost_usd} is summed.
 *
 * @param calls        every ledger row of the org in the lane, whatever its outcome
 * @param merges       the rows whose answer was stored as the conflict's merge
 * @param inputTokens  input tokens over every row, cache reads and writes included
 * @param outputTokens output tokens over every row
 * @param costUsd      the sum of the rows' {@code cost_usd}
 */
record LaneCost(long calls, long merges, long inputTokens, long outputTokens, BigDecimal costUsd) {

    /** The org's rows of {@code lane} ({@code interactive} or {@code batch}). */
    static LaneCost read(BenchDatabase db, UUID org, String lane) throws SQLException {
        try (Connection c = db.connectAsSweep(); PreparedStatement s = c.prepareStatement(
                "SELECT count(*), count(*) FILTER (WHERE outcome = 'stored'), "
                        + "coalesce(sum(input_tokens + cache_read_tokens + cache_write_tokens), 0), "
                        + "coalesce(sum(output_tokens), 0), coalesce(sum(cost_usd), 0) "
                        + "FROM llm_usage_events WHERE org_id = ? AND lane = ?")) {
            s.setObject(1, org);
            s.setString(2, lane);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return new LaneCost(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getBigDecimal(5));
            }
        }
    }

    /** USD per 1,000 merges: every call's cost, the failed and discarded ones too, over the merges stored. */
    double usdPerThousandMerges() {
        return costUsd.doubleValue() * 1_000 / requireMerges();
    }

    double callsPerMerge() {
        return calls / (double) requireMerges();
    }

    double inputTokensPerMerge() {
        return inputTokens / (double) requireMerges();
    }

    double outputTokensPerMerge() {
        return outputTokens / (double) requireMerges();
    }

    /** This lane's cost per 1,000 merges over {@code other}'s: 0.5 when this lane costs half as much a merge. */
    double costRatioTo(LaneCost other) {
        return usdPerThousandMerges() / other.usdPerThousandMerges();
    }

    private long requireMerges() {
        if (merges == 0) {
            throw new IllegalStateException("no merge stored in the ledger, so nothing per merge can be said ("
                    + calls + " calls)");
        }
        return merges;
    }

    @Override
    public String toString() {
        return calls + " calls, " + merges + " merges, " + inputTokens + " input and " + outputTokens
                + " output tokens, " + costUsd.stripTrailingZeros().toPlainString() + " USD";
    }
}
