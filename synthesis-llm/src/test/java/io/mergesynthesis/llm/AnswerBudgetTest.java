package io.mergesynthesis.llm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The output budget per call: learnt from real answers, never below one it has seen for as many rules. */
class AnswerBudgetTest {

    private static final int CONFIGURED = 1024;
    private static final int MOST = 65536;

    /**
     * Seeded: models answering conflicts of 1 to 40 rules with answers of a fixed part plus a random share per
     * rule; once the budget is learnt, each answer still in the window would fit the budget a first call gets for
     * a conflict of its size, with the headroom to spare.
     */
    @Test
    void aLearntBudgetFitsEveryAnswerInItsWindowWithHeadroom() {
        Random random = new Random(2039);
        for (int run = 0; run < 50; run++) {
            AnswerBudget budget = new AnswerBudget(CONFIGURED, MOST);
            Deque<long[]> window = new ArrayDeque<>();
            int fixed = 60 + random.nextInt(200);
            int perRule = 15 + random.nextInt(60);
            for (int i = 0; i < 400; i++) {
                int rules = 1 + random.nextInt(40);
                long tokens = fixed + (long) perRule * (rules - 1) + random.nextInt(80);
                budget.answered("m", rules, tokens);
                window.addLast(new long[] {rules, tokens});
                if (window.size() > AnswerBudget.WINDOW) {
                    window.removeFirst();
                }
                if (i + 1 < AnswerBudget.LEARNT_AFTER) {
                    continue;
                }
                for (long[] seen : window) {
                    int given = budget.first("m", (int) seen[0], true);
                    assertThat(given).as("run %d answer %d: %d rules, %d tokens", run, i, seen[0], seen[1])
                            .isGreaterThanOrEqualTo((int) Math.min(MOST, Math.ceil(seen[1] * AnswerBudget.HEADROOM)));
                }
            }
        }
    }

    @Test
    void untilEnoughAnswersTheConfiguredBudgetHoldsAndALargeConflictGetsMore() {
        AnswerBudget budget = new AnswerBudget(CONFIGURED, MOST);
        for (int i = 0; i < AnswerBudget.LEARNT_AFTER - 1; i++) {
            budget.answered("m", 3, 100);
        }

        assertThat(budget.first("m", 3, true)).isEqualTo(CONFIGURED);
        assertThat(budget.first("m", 100, true)).isEqualTo(AnswerBudget.PRIOR_TOKENS_PER_RULE * 103);
        assertThat(budget.first("another model", 3, true)).isEqualTo(CONFIGURED);
    }

    @Test
    void enoughShortAnswersShrinkTheBudgetToTheirSizeWithHeadroomButNotBelowTheFloor() {
        AnswerBudget budget = new AnswerBudget(CONFIGURED, MOST);
        for (int i = 0; i < AnswerBudget.LEARNT_AFTER; i++) {
            budget.answered("m", 5, 400);
        }

        // 400 tokens over 5 + 3 weighted rules is 50 a rule: 50 x 8 x 1.5.
        assertThat(budget.first("m", 5, true)).isEqualTo(600);
        assertThat(budget.first("m", 1, true)).isEqualTo(300);
        budget.answered("tiny", 1, 1);
        for (int i = 0; i < AnswerBudget.LEARNT_AFTER; i++) {
            budget.answered("tiny", 1, 10);
        }
        assertThat(budget.first("tiny", 1, true)).isEqualTo(AnswerBudget.FLOOR);
    }

    @Test
    void answersWithoutUsageTeachNothing() {
        AnswerBudget budget = new AnswerBudget(CONFIGURED, MOST);
        for (int i = 0; i < 3 * AnswerBudget.LEARNT_AFTER; i++) {
            budget.answered("m", 3, 0);
        }

        assertThat(budget.first("m", 3, true)).isEqualTo(CONFIGURED);
    }

    @Test
    void beforeTheModelHasBeenHeardFromAFirstCallAsksForThePriorSizedToTheConflictAlone() {
        AnswerBudget budget = new AnswerBudget(CONFIGURED, MOST);

        // 64 tokens for each of 2 rules and the answer's fixed part of 3: within the 800 a small tier's bucket,
        // a tenth full, holds, where the configured 1,024 is not.
        assertThat(budget.first("m", 2, false)).isEqualTo(320);
        assertThat(budget.first("m", 100, false)).isEqualTo(AnswerBudget.PRIOR_TOKENS_PER_RULE * 103);
        assertThat(budget.first("m", 2, true)).isEqualTo(CONFIGURED);
    }

    @Test
    void anAnswerCutAtASmallBudgetIsAskedAgainWithNoLessThanTheConfiguredBudget() {
        AnswerBudget budget = new AnswerBudget(CONFIGURED, MOST);

        assertThat(budget.retry(320)).as("an answer the configured budget holds is not cut twice")
                .isEqualTo(CONFIGURED);
        assertThat(budget.retry(CONFIGURED)).isEqualTo(2 * CONFIGURED);
    }

    @Test
    void noBudgetExceedsTheLargestAnswerTheCheckAccepts() {
        AnswerBudget budget = new AnswerBudget(CONFIGURED, 2000);

        assertThat(budget.first("m", 1000, true)).isEqualTo(2000);
        assertThat(budget.first("m", 1000, false)).isEqualTo(2000);
        assertThat(budget.retry(1500)).isEqualTo(2000);
        assertThat(budget.retry(600)).isEqualTo(1200);
    }
}
