package io.mergesynthesis.llm;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Reads the token counts of a provider's {@code usage} block, refusing any it could not honestly have meant: a
 * count must be a whole number from 0 to {@link #MOST_TOKENS}. An absent or null count is 0, as providers leave
 * out the cache counts of calls that used no cache. A refused count makes the whole answer unusable and the call
 * is charged by {@link Usage#worstCase} instead: the ledger, the metrics and the budgets take only sane numbers.
 */
public final class ReportedUsage {

    /** Far above any model's context window and output together, far below what would overflow a cost. */
    public static final long MOST_TOKENS = 10_000_000L;

    private ReportedUsage() {
    }

    /** A count in the usage block that cannot be taken, with what was wrong in words fit for the history. */
    public static final class Refused extends Exception {
        Refused(String message) {
            super(message, null, false, false);
        }
    }

    /** The usage block itself: an object, absent or null; anything else is refused. */
    public static JsonNode block(JsonNode body) throws Refused {
        JsonNode usage = body.path("usage");
        if (usage.isMissingNode() || usage.isNull() || usage.isObject()) {
            return usage;
        }
        throw new Refused("the usage block is " + shown(usage) + ", not an object");
    }

    /** The count named {@code field} of {@code usage}, 0 when absent. */
    public static long count(JsonNode usage, String field) throws Refused {
        JsonNode value = usage.path(field);
        if (value.isMissingNode() || value.isNull()) {
            return 0;
        }
        if (value.isIntegralNumber() && value.canConvertToLong()
                && value.longValue() >= 0 && value.longValue() <= MOST_TOKENS) {
            return value.longValue();
        }
        throw new Refused("the usage count " + field + " is " + shown(value) + ", not a whole number from 0 to "
                + MOST_TOKENS);
    }

    private static String shown(JsonNode value) {
        String text = value.toString();
        return ProviderText.clean(text.length() > 40 ? text.substring(0, 40) + "..." : text);
    }
}
