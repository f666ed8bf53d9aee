package io.mergesynthesis.service.web;

import io.mergesynthesis.service.core.ModelUsage;
import io.mergesynthesis.service.usage.MonthToDate;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The values of the usage page, with the geometry of its bar chart computed here: the chart is plain SVG that
 * needs neither a script nor a style attribute, both of which the page's security policy forbids.
 */
record UsagePage(String month, List<Row> rows, List<Row> lanes, long calls, long tokens, String cost, String budget,
                 String model, String percentOfBudget, int meterValue, boolean overBudget, Chart chart) {

    static final int CHART_WIDTH = 640;
    static final int LABEL_WIDTH = 240;
    static final int BAR_SPACE = CHART_WIDTH - LABEL_WIDTH - 80;
    static final int ROW_HEIGHT = 28;

    record Row(String name, long calls, long inputTokens, long outputTokens, long cacheTokens, String cost) {
    }

    record Bar(String label, String value, int y, int textY, int width, int valueX) {
    }

    record Chart(int width, int height, int labelWidth, List<Bar> bars, boolean hasBudgetLine, int budgetX,
                 int budgetLineEnd) {

        int labelY() {
            return height - 4;
        }
    }

    boolean hasCalls() {
        return !rows.isEmpty();
    }

    /** Whether any call went by the batch lane: only then is the split by lane worth a table. */
    boolean hasBatchLane() {
        return lanes.stream().anyMatch(lane -> !lane.name().equals("interactive"));
    }

    boolean hasBudget() {
        return budget != null;
    }

    static UsagePage of(MonthToDate usage) {
        Instant monthStart = usage.monthStart();
        List<Row> rows = new ArrayList<>();
        long calls = 0;
        long tokens = 0;
        for (ModelUsage m : usage.byModel()) {
            long cacheTokens = m.cacheReadTokens() + m.cacheWriteTokens();
            rows.add(new Row(m.model(), m.calls(), m.inputTokens(), m.outputTokens(), cacheTokens,
                    Dollars.usd(m.costUsd())));
            calls += m.calls();
            tokens += m.inputTokens() + m.outputTokens() + cacheTokens;
        }
        List<Row> lanes = usage.byLane().stream().map(l -> new Row(l.lane(), l.calls(), l.inputTokens(),
                l.outputTokens(), l.cacheReadTokens() + l.cacheWriteTokens(), Dollars.usd(l.costUsd()))).toList();
        BigDecimal total = usage.totalCost();
        BigDecimal budget = usage.settings().monthlyBudgetUsd();
        String percent = null;
        int meter = 0;
        boolean over = false;
        if (budget != null) {
            if (budget.signum() > 0) {
                BigDecimal share = total.multiply(BigDecimal.valueOf(100)).divide(budget, 1, RoundingMode.HALF_UP);
                percent = share.toPlainString() + "%";
                meter = share.min(BigDecimal.valueOf(100)).intValue();
            } else {
                percent = "budget is 0";
                meter = 100;
            }
            over = total.compareTo(budget) >= 0;
        }
        return new UsagePage(DateTimeFormatter.ofPattern("MMMM yyyy", Locale.ENGLISH).withZone(ZoneOffset.UTC)
                .format(monthStart), rows, lanes, calls, tokens, Dollars.usd(total),
                budget == null ? null : Dollars.usd(budget), usage.settings().model(), percent, meter, over,
                chart(usage, budget));
    }

    /** One horizontal bar per model, scaled to the larger of the biggest cost and the budget. */
    private static Chart chart(MonthToDate usage, BigDecimal budget) {
        BigDecimal scale = usage.byModel().stream().map(ModelUsage::costUsd).reduce(BigDecimal.ZERO, BigDecimal::max);
        if (budget != null) {
            scale = scale.max(budget);
        }
        List<Bar> bars = new ArrayList<>();
        int y = 8;
        for (ModelUsage m : usage.byModel()) {
            bars.add(new Bar(m.model(), Dollars.usd(m.costUsd()), y, y + 17,
                    width(m.costUsd(), scale), LABEL_WIDTH + width(m.costUsd(), scale) + 6));
            y += ROW_HEIGHT;
        }
        int budgetX = budget == null ? 0 : LABEL_WIDTH + width(budget, scale);
        return new Chart(CHART_WIDTH, y + 22, LABEL_WIDTH, bars, budget != null && !bars.isEmpty(), budgetX, y + 4);
    }

    private static int width(BigDecimal value, BigDecimal scale) {
        if (scale.signum() <= 0) {
            return 0;
        }
        int w = value.multiply(BigDecimal.valueOf(BAR_SPACE)).divide(scale, 0, RoundingMode.HALF_UP).intValue();
        return value.signum() > 0 ? Math.max(2, w) : 0;
    }
}
