package io.mergesynthesis.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cost figure's own run, small: the request after ADR 0039 is smaller, and a marked prefix is read back. */
class MergeCostTest {

    @Test
    void afterIsSmallerThanBeforeAndTheCacheLowersTheCostWhereThePrefixReachesTheMinimum(@TempDir Path dir)
            throws Exception {
        Path config = dir.resolve("config.yml");
        Files.writeString(config, """
                llm:
                  providers:
                    anthropic: {type: anthropic, answerMode: tool}
                    openai: {type: openai, answerMode: tool}
                  models:
                    anthropic/reaches: {inputPerMillionUsd: 3, outputPerMillionUsd: 15, minCachedPrefixTokens: 1024}
                    anthropic/falls-short: {inputPerMillionUsd: 1, outputPerMillionUsd: 5, minCachedPrefixTokens: 100000}
                    openai/${MODEL:-automatic}: {inputPerMillionUsd: 2, outputPerMillionUsd: 8}
                """);

        List<MergeCost.Row> rows = MergeCost.run(config, 12);

        assertThat(rows).hasSize(12);
        for (String model : List.of("anthropic/reaches", "anthropic/falls-short", "openai/automatic")) {
            MergeCost.Row before = row(rows, model, MergeCost.Shape.BEFORE, false);
            MergeCost.Row after = row(rows, model, MergeCost.Shape.AFTER, false);
            assertThat(after.inputPerMerge()).as(model).isLessThan(before.inputPerMerge() * 0.8);
            assertThat(after.estimatePerCall()).as(model).isLessThan(before.estimatePerCall() * 0.8);
            assertThat(after.outputPerMerge()).as(model).isEqualTo(before.outputPerMerge());
            assertThat(after.costPer1000()).as(model).isLessThan(before.costPer1000());
        }
        MergeCost.Row cached = row(rows, "anthropic/reaches", MergeCost.Shape.AFTER, true);
        assertThat(cached.cacheReadPerMerge()).isPositive();
        assertThat(cached.costPer1000())
                .isLessThan(row(rows, "anthropic/reaches", MergeCost.Shape.AFTER, false).costPer1000());
        assertThat(row(rows, "anthropic/reaches", MergeCost.Shape.BEFORE, true).cacheReadPerMerge()).isZero();
        assertThat(row(rows, "anthropic/falls-short", MergeCost.Shape.AFTER, true).cacheReadPerMerge()).isZero();
        assertThat(row(rows, "openai/automatic", MergeCost.Shape.BEFORE, true).cacheReadPerMerge()).isPositive();
        assertThat(rows).allSatisfy(row -> assertThat(row.costPer1000()).isGreaterThan(BigDecimal.ZERO));
    }

    private static MergeCost.Row row(List<MergeCost.Row> rows, String model, MergeCost.Shape shape, boolean cache) {
        return rows.stream().filter(r -> r.model().equals(model) && r.shape() == shape && r.cache() == cache)
                .findFirst().orElseThrow();
    }
}
