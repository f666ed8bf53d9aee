package io.mergesynthesis.service.web;

import io.mergesynthesis.service.core.FleetOverview;
import io.mergesynthesis.service.core.ModelCatalog;
import io.mergesynthesis.service.core.SynthesisState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The values of the operator page. */
record OperatorPage(List<StateCount> states, long total, List<FleetOverview.ReasonCount> marked,
                    List<FleetOverview.ReasonCount> recent, List<OrgRow> orgs, ModelCatalog models, String viewing,
                    OrgListing listing) {

    /**
     * The org list's search, order and pages: Previous and Next links, each carrying the search and the order, and
     * a link per order that keeps the search and starts at the first page.
     */
    record OrgListing(String search, FleetOverview.OrgOrder order, String previousFrom, String nextFrom) {
        boolean searching() {
            return search != null && !search.isEmpty();
        }

        String searchQuery() {
            String sort = order == FleetOverview.OrgOrder.SPEND ? "" : "&sort=" + order.wireName();
            return sort + (searching()
                    ? "&q=" + java.net.URLEncoder.encode(search, java.nio.charset.StandardCharsets.UTF_8) : "");
        }

        List<OrderLink> orders() {
            List<OrderLink> links = new ArrayList<>();
            for (FleetOverview.OrgOrder each : FleetOverview.OrgOrder.values()) {
                String query = "sort=" + each.wireName() + (searching()
                        ? "&q=" + java.net.URLEncoder.encode(search, java.nio.charset.StandardCharsets.UTF_8) : "");
                links.add(new OrderLink(each.label(), query, each == order));
            }
            return links;
        }
    }

    /** One order of the org list: the current one is shown as such, the others as links. */
    record OrderLink(String label, String query, boolean current) {
    }

    record StateCount(String state, String label, long count) {
    }

    record ModelOption(String value, String label, boolean selected) {
    }

    record OrgRow(String org, OrgLabel orgLabel, long conflicts, long waitingBudget, long failed, long calls, String cost, String budget,
                  String budgetInput, String model, List<ModelOption> modelOptions, boolean overBudget,
                  boolean viewing, String modelProblem) {
        boolean failedAny() {
            return failed > 0;
        }
    }

    /** The orgs whose own model this replica cannot serve: their conflicts wait, uncounted, until it can. */
    long unservable() {
        return orgs.stream().filter(o -> o.modelProblem() != null).count();
    }

    boolean hasUnservable() {
        return unservable() > 0;
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

    static OperatorPage of(FleetOverview fleet, ModelCatalog models, String viewing, OrgListing listing) {
        List<StateCount> states = new ArrayList<>();
        long total = 0;
        for (Map.Entry<SynthesisState, Long> e : fleet.byState().entrySet()) {
            states.add(new StateCount(e.getKey().wireName(), e.getKey().label(), e.getValue()));
            total += e.getValue();
        }
        List<OrgRow> orgs = fleet.orgs().stream().map(o -> new OrgRow(o.org().toString(),
                OrgLabel.of(o.org(), o.name()), o.conflicts(),
                o.waitingBudget(), o.failed(), o.calls(), Dollars.usd(o.costUsd()),
                o.monthlyBudgetUsd() == null ? null : Dollars.usd(o.monthlyBudgetUsd()),
                o.monthlyBudgetUsd() == null ? "" : o.monthlyBudgetUsd().stripTrailingZeros().toPlainString(),
                o.model(), options(models, o.model()),
                o.monthlyBudgetUsd() != null && o.costUsd().compareTo(o.monthlyBudgetUsd()) >= 0,
                o.org().toString().equals(viewing), problem(models, o.model()))).toList();
        return new OperatorPage(states, total, fleet.markedByReason(), fleet.recentByReason(), orgs, models, viewing,
                listing);
    }

    private static String problem(ModelCatalog models, String model) {
        Optional<ModelCatalog.Unusable> unusable = model == null ? Optional.empty() : models.unusable(model);
        return unusable.map(u -> "Its conflicts wait: " + u.describe() + ".").orElse(null);
    }

    /**
     * The default choice, then every configured model, those this replica cannot call marked so. A stored model
     * no longer configured stays selectable, so saving a budget does not silently change the model.
     */
    private static List<ModelOption> options(ModelCatalog models, String current) {
        List<ModelOption> options = new ArrayList<>();
        options.add(new ModelOption("", "default (configured primary)", current == null));
        models.models().forEach(m -> options.add(new ModelOption(m.name(), m.usable() ? m.name()
                : m.name() + (m.keyVariable() == null ? " (not usable)" : " (not usable: set " + m.keyVariable() + ")"),
                m.name().equals(current))));
        if (current != null && models.find(current).isEmpty()) {
            options.add(new ModelOption(current, current + " (not configured)", true));
        }
        return options;
    }
}
