package io.mergesynthesis.service.core;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The operator's view across orgs, read from the database (so it is the same whichever replica answers, unlike
 * each replica's own metrics): conflicts by synthesis state, failures by reason, every org's spend and budget.
 *
 * @param byState        every state, in the enum's order, zero when no conflict is in it
 * @param markedByReason conflicts that carry the permanent marker, by their last failure reason
 * @param recentByReason recent attempt endings that stored no merge, by outcome and reason
 * @param orgs           one page of orgs
 * @param moreOrgs       whether more orgs follow that page
 */
public record FleetOverview(Map<SynthesisState, Long> byState, List<ReasonCount> markedByReason,
                            List<ReasonCount> recentByReason, List<OrgRow> orgs, boolean moreOrgs) {

    public record ReasonCount(String outcome, String reason, long count) {
    }

    /**
     * Which orgs to list: those whose name or id starts with {@code search} (any case; empty or null for all),
     * {@code size} of them from {@code offset}, in {@code order}.
     */
    public record OrgPage(String search, int offset, int size, OrgOrder order) {
        public OrgPage {
            if (offset < 0 || size < 1) {
                throw new IllegalArgumentException("a page starts at 0 or later and holds at least one org");
            }
            if (order == null) {
                throw new IllegalArgumentException("an org list has an order");
            }
        }
    }

    /** The orders of the org list; each breaks its ties by name, then id. */
    public enum OrgOrder implements WireName {
        /** This month's spend, costliest first, then most conflicts. */
        SPEND("spend", "Spend this month"),
        /** Most conflicts first. */
        CONFLICTS("conflicts", "Conflicts"),
        /** By name, unnamed orgs last. */
        NAME("name", "Name");

        private final String wireName;
        private final String label;

        OrgOrder(String wireName, String label) {
            this.wireName = wireName;
            this.label = label;
        }

        @Override
        public String wireName() {
            return wireName;
        }

        public String label() {
            return label;
        }

        /** The order named {@code wireName}; the default (spend) for anything else, a missing value included. */
        public static OrgOrder ofQuery(String wireName) {
            return WireName.lookup(OrgOrder.class, wireName).orElse(SPEND);
        }
    }

    /** One org (its name null until the platform gives it one): its conflicts, this month's calls and cost, and what the platform set for it. */
    public record OrgRow(UUID org, String name, long conflicts, long waitingBudget, long failed, long calls, BigDecimal costUsd,
                         String model, BigDecimal monthlyBudgetUsd) {
    }
}
