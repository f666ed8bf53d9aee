package io.mergesynthesis.service.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.mergesynthesis.service.core.Deciders;
import io.mergesynthesis.service.core.InboxCounts;
import io.mergesynthesis.service.core.InboxStatus;
import io.mergesynthesis.service.core.StoredConflict;
import io.mergesynthesis.service.core.SynthesisState;
import io.mergesynthesis.service.inbox.PageOfConflicts;
import io.mergesynthesis.synthesis.Action;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The values of the inbox page: one page of conflicts, the filters and the search, the counts, the paging links,
 * the bulk actions' form and the address of the page's JSON view.
 */
record InboxPage(List<Row> rows, List<Chip> stateChips, List<Chip> statusChips, long total, Shown shown,
                 List<Option> statusOptions, List<Option> stateOptions, List<Option> actionOptions, String q,
                 List<Option> sortOptions, Paging paging, boolean filtered, String liveLink, Bulk bulk) {

    /** {@code decidedBy} and {@code decided}: who resolved the conflict and when, else who acknowledged it. */
    record Row(String id, String link, String action, String target, String winner, String state, String stateLabel,
               String inboxStatus, Moment received, String decidedBy, Moment decided) {

        static Row of(StoredConflict c, Deciders deciders, ObjectMapper json, Instant now) {
            boolean resolved = c.inboxStatus() == InboxStatus.RESOLVED;
            String by = deciders == null ? null
                    : ActorWords.of(resolved ? deciders.resolvedByJson() : deciders.acknowledgedByJson(), json);
            return new Row(c.id().toString(), "/conflicts/" + c.id(), c.action(), c.target(), c.winnerPolicyId(),
                    c.synthesisState().wireName(), c.synthesisState().label(), c.inboxStatus().wireName(),
                    Moment.of(c.receivedAt(), now), by,
                    by == null ? null : Moment.of(resolved ? c.resolvedAt() : c.acknowledgedAt(), now));
        }
    }

    /** {@code key} names the count for the page's script: {@code state:done}, {@code inbox:open}. */
    record Chip(String label, long count, String link, boolean current, String key) {
    }

    record Option(String value, String label, boolean selected) {
    }

    /**
     * Which conflicts the list holds, beside the counts of all: those not yet resolved ({@code unresolved} of them,
     * with a link to every conflict), or every one (with a link back). The counts above stay the org's whole.
     */
    record Shown(boolean unresolvedOnly, long unresolved, long resolved, String everyLink, String unresolvedLink) {
    }

    /** The links to the first, the previous and the next page, worded for the order the page is in. */
    record Paging(String firstLink, String firstLabel, String previousLink, String previousLabel, String nextLink,
                  String nextLabel) {
    }

    /**
     * The bulk form, for a person who may change conflicts: the current filter rides along in hidden fields, for
     * "every conflict matching the filter".
     */
    record Bulk(String inboxStatus, String state, String action, String q, boolean mayRequeue, int matchingCap) {
    }

    boolean empty() {
        return rows.isEmpty();
    }

    static InboxPage of(PageOfConflicts page, InboxCounts counts, Map<UUID, Deciders> deciders, InboxQuery query,
                        boolean mayChange, boolean mayRequeue, int matchingCap, ObjectMapper json, Instant now) {
        List<Row> rows = page.conflicts().stream().map(c -> Row.of(c, deciders.get(c.id()), json, now)).toList();
        List<Chip> stateChips = new ArrayList<>();
        for (Map.Entry<SynthesisState, Long> e : counts.bySynthesisState().entrySet()) {
            stateChips.add(new Chip(e.getKey().label(), e.getValue(), query.withState(e.getKey()).first(),
                    e.getKey() == query.state(), "state:" + e.getKey().wireName()));
        }
        List<Chip> statusChips = new ArrayList<>();
        for (Map.Entry<InboxStatus, Long> e : counts.byInboxStatus().entrySet()) {
            statusChips.add(new Chip(e.getKey().label(), e.getValue(), query.withStatus(e.getKey()).first(),
                    e.getKey() == query.inboxStatus(), "inbox:" + e.getKey().wireName()));
        }
        List<Option> statusOptions = new ArrayList<>();
        statusOptions.add(new Option("", "not resolved", query.unresolvedOnly()));
        statusOptions.add(new Option(InboxQuery.EVERY_STATUS, "any", query.everyStatus()));
        for (InboxStatus s : InboxStatus.values()) {
            statusOptions.add(new Option(s.wireName(), s.label(), s == query.inboxStatus()));
        }
        List<Option> stateOptions = new ArrayList<>();
        stateOptions.add(new Option("", "any", query.state() == null));
        for (SynthesisState s : SynthesisState.values()) {
            stateOptions.add(new Option(s.wireName(), s.label(), s == query.state()));
        }
        List<Option> actionOptions = new ArrayList<>();
        actionOptions.add(new Option("", "any", query.action() == null));
        for (Action a : Action.values()) {
            actionOptions.add(new Option(a.wireName(), a.wireName().replace('_', ' '), a.wireName().equals(query.action())));
        }
        Bulk bulk = !mayChange ? null : new Bulk(query.statusParameter(),
                query.state() == null ? null : query.state().wireName(), query.action(), query.q(), mayRequeue,
                matchingCap);
        List<Option> sortOptions = List.of(new Option("", "newest first", !query.oldestFirst()),
                new Option(InboxQuery.OLDEST, "oldest first", query.oldestFirst()));
        boolean oldest = query.oldestFirst();
        Paging paging = new Paging(query.position() != null ? query.first() : null, oldest ? "« Oldest" : "« Newest",
                page.previous() == null ? null : query.back(page.previous()), oldest ? "‹ Older" : "‹ Newer",
                page.next() == null ? null : query.onward(page.next()), oldest ? "Newer »" : "Older »");
        long resolved = counts.byInboxStatus().get(InboxStatus.RESOLVED);
        Shown shown = query.inboxStatus() != null ? null : new Shown(query.unresolvedOnly(),
                counts.total() - resolved, resolved, query.withEveryStatus(true).first(),
                query.withEveryStatus(false).first());
        return new InboxPage(rows, stateChips, statusChips, counts.total(), shown, statusOptions, stateOptions,
                actionOptions, query.q(), sortOptions, paging, query.filtered(), query.live(), bulk);
    }
}
