package io.mergesynthesis.service.web;

import io.mergesynthesis.service.inbox.BulkActions;
import java.util.List;

/** What a bulk action did, for the page that answers it: the changed conflicts, the refused ones with reasons. */
record BulkSummaryPage(String heading, List<Item> changed, List<Item> refused, boolean capped, int cap,
                       String backLink) {

    /** A conflict in the summary; {@code link} and {@code target} are null for one that is not there. */
    record Item(String link, String target, String id, String reason) {
    }

    static BulkSummaryPage of(BulkActions.Summary summary, InboxQuery query) {
        List<Item> changed = summary.changed().stream()
                .map(c -> new Item("/conflicts/" + c.id(), c.target(), c.id().toString(), null)).toList();
        List<Item> refused = summary.refused().stream()
                .map(r -> new Item(r.target() == null ? null : "/conflicts/" + r.id(), r.target(), r.id().toString(),
                        r.reason())).toList();
        String heading = summary.operation().label() + ": " + changed.size() + " changed, " + refused.size()
                + " refused";
        return new BulkSummaryPage(heading, changed, refused, summary.capped(), BulkActions.MAX_CONFLICTS,
                query.first());
    }

    static BulkSummaryPage nothing(InboxQuery query) {
        return new BulkSummaryPage("Nothing was done", List.of(), List.of(), false, BulkActions.MAX_CONFLICTS,
                query.first());
    }

    boolean anyChanged() {
        return !changed.isEmpty();
    }

    boolean anyRefused() {
        return !refused.isEmpty();
    }
}
