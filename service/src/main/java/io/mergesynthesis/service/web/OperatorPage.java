package io.mergesynthesis.service.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The values of the operator page. */
record OperatorPage(List<StateCount> states, long total, List<FleetOverview.ReasonCount> marked,
                    List<FleetOverview.ReasonCount> recent, List<OrgRow> orgs, List<String> models, String viewing) {

    record StateCount(String state, String label, long count) {
    }

    record ModelOption(String value, String label, boolean selected) {
    }

    record OrgRow(String org, long conflicts, long waitingBudget, long failed, long calls, String cost, String budget,
                  String budgetInput, String model, List<ModelOption> modelOptions, boolean overBudget,
                  boolean viewing) {
    }

    boolean hasMarked() {
        return !marked.isEmpty();
    }

    boolean hasRecent() {
        return !recent.isEmpty();
    }

    boolean hasOrgs() {
        return !orgs.isEmpty();
    }

    List<ModelOption> newOrgModelOptions() {
        return options(models, null);
    }

    static OperatorPage of(FleetOverview fleet, List<String> models, String viewing) {
        List<StateCount> states = new ArrayList<>();
        long total = 0;
        for (Map.Entry<String, Long> e : fleet.byState().entrySet()) {
            states.add(new StateCount(e.getKey(), Labels.state(e.getKey()), e.getValue()));
            total += e.getValue();
        }
        List<OrgRow> orgs = fleet.orgs().stream().map(o -> new OrgRow(o.org().toString(), o.conflicts(),
                o.waitingBudget(), o.failed(), o.calls(), Dollars.usd(o.costUsd()),
                o.monthlyBudgetUsd() == null ? null : Dollars.usd(o.monthlyBudgetUsd()),
                o.monthlyBudgetUsd() == null ? "" : o.monthlyBudgetUsd().stripTrailingZeros().toPlainString(),
                o.model(), options(models, o.model()),
                o.monthlyBudgetUsd() != null && o.costUsd().compareTo(o.monthlyBudgetUsd()) >= 0,
                o.org().toString().equals(viewing))).toList();
        return new OperatorPage(states, total, fleet.markedByReason(), fleet.recentByReason(), orgs, models, viewing);
    }

    /**
     * The default choice, then every configured model. A stored model no longer configured stays selectable, so
     * saving a budget does not silently change the model.
     */
    private static List<ModelOption> options(List<String> models, String current) {
        List<ModelOption> options = new ArrayList<>();
        options.add(new ModelOption("", "default (configured primary)", current == null));
        models.forEach(m -> options.add(new ModelOption(m, m, m.equals(current))));
        if (current != null && !models.contains(current)) {
            options.add(new ModelOption(current, current + " (not configured)", true));
        }
        return options;
    }
}
