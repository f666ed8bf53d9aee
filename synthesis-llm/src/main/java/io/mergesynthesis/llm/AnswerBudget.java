package io.mergesynthesis.llm;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How many output tokens each call may take ({@code max_tokens}), per model, sized to the conflict's number of
 * rules. The schema bounds no string, so the largest answer it allows is unbounded; instead the budget follows
 * the answers this model has actually given: the most tokens it spent per rule over its last {@link #WINDOW}
 * accepted answers, times the conflict's rules plus the answer's fixed part, with {@link #HEADROOM}. Until it
 * has seen {@link #LEARNT_AFTER} answers it gives the configured {@code maxOutputTokens}, more for a large
 * conflict. A call cut at its budget is asked once more with {@link #retry twice as much}, and no less than the
 * configured budget. Never more than the provider's {@code maxAnswerBytes}: an answer longer than that fails the
 * answer check anyway, and a token is at least a byte.
 *
 * <p>The budget matters beyond the answer itself: Anthropic charges a call's whole {@code max_tokens} against the
 * output-token limit while the call runs, and refuses a call whose budget the bucket cannot hold. Until the model
 * has answered this replica, nothing is known of how much of its limits someone else sharing the key has left: a
 * first call asks for the prior guess alone, sized to the conflict, rather than the configured budget, which a
 * small tier's partly spent bucket may not hold (8,000 output tokens a minute at Anthropic's first tier, a tenth
 * of it left, against a configured 1,024). Thread-safe.
 */
final class AnswerBudget {

    /** Answers per model the budget is learnt from; the oldest is forgotten first. */
    static final int WINDOW = 200;
    /** Answers per model before the learnt budget replaces the configured one. */
    static final int LEARNT_AFTER = 20;
    /**
     * The answer's fixed part (the resolved effect, the merged rule, the rationale), counted as this many rules:
     * so that a budget learnt on conflicts of many rules still fits an answer to a conflict of two.
     */
    static final int FIXED_PART_IN_RULES = 3;
    static final double HEADROOM = 1.5;
    /** The least a learnt budget gives, whatever the answers so far. */
    static final int FLOOR = 256;
    /** Before anything is learnt: a generous guess of one loser action's tokens, for conflicts of many rules. */
    static final int PRIOR_TOKENS_PER_RULE = 64;

    private final int configured;
    private final int most;
    private final Map<String, Window> byModel = new ConcurrentHashMap<>();

    /**
     * @param configured the provider's {@code maxOutputTokens}: the budget until answers have been seen
     * @param most       the provider's {@code maxAnswerBytes}: no budget exceeds it
     */
    AnswerBudget(int configured, int most) {
        this.configured = configured;
        this.most = Math.max(1, most);
    }

    /**
     * The budget of a first call to {@code model} for a conflict of {@code rules} rules.
     *
     * @param heard whether the model has answered this replica or stated its limits
     */
    int first(String model, int rules, boolean heard) {
        long weight = (long) rules + FIXED_PART_IN_RULES;
        Window window = byModel.get(model);
        long budget;
        if (!heard) {
            budget = PRIOR_TOKENS_PER_RULE * weight;
        } else if (window == null || window.size() < LEARNT_AFTER) {
            budget = Math.max(configured, PRIOR_TOKENS_PER_RULE * weight);
        } else {
            budget = Math.max(FLOOR, (long) Math.ceil(window.most() * weight * HEADROOM));
        }
        return (int) Math.min(budget, most);
    }

    /**
     * The budget of the one call made again after an answer was cut at {@code cutAt} tokens: an answer the
     * configured budget would have held is not cut twice for a first budget made smaller.
     */
    int retry(int cutAt) {
        return (int) Math.min(Math.max(2L * cutAt, configured), most);
    }

    /** An answer {@code model} gave to a conflict of {@code rules} rules that passed the answer check. */
    void answered(String model, int rules, long outputTokens) {
        if (outputTokens <= 0) {
            // A server that reports no usage teaches nothing; a zero would shrink the budget to the floor.
            return;
        }
        byModel.computeIfAbsent(model, m -> new Window())
                .add((double) outputTokens / (rules + FIXED_PART_IN_RULES));
    }

    /** The last answers' tokens per weighted rule, in a ring. */
    private static final class Window {

        private final double[] perRule = new double[WINDOW];
        private int next;
        private int size;

        synchronized void add(double value) {
            perRule[next] = value;
            next = (next + 1) % WINDOW;
            size = Math.min(size + 1, WINDOW);
        }

        synchronized int size() {
            return size;
        }

        synchronized double most() {
            double most = 0;
            for (int i = 0; i < size; i++) {
                most = Math.max(most, perRule[i]);
            }
            return most;
        }
    }
}
