package io.mergesynthesis.service.web;

import io.mergesynthesis.service.core.InboxCounts;
import io.mergesynthesis.service.core.InboxStatus;
import io.mergesynthesis.service.core.StoredConflict;
import io.mergesynthesis.service.core.SynthesisState;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The values of the inbox page: one page of conflicts, the filters, the counts and the paging links. */
record InboxPage(List<Row> rows, List<Chip> stateChips, List<Chip> statusChips, long total,
                 List<Option> statusOptions, List<Option> stateOptions, String olderLink, String newestLink,
                 boolean filtered) {

    record Row(String link, String action, String target, String winner, String state, String stateLabel,
               String inboxStatus, Moment received) {
    }

    record Chip(String label, long count, String link, boolean current) {
    }

    record Option(String value, String label, boolean selected) {
    }

    boolean empty() {
        return rows.isEmpty();
    }

    static InboxPage of(List<StoredConflict> conflicts, InboxCounts counts, InboxStatus inboxStatus,
                        SynthesisState state, String olderCursor, boolean notFirstPage, Instant now) {
        String status = inboxStatus == null ? null : inboxStatus.wireName();
        String stateName = state == null ? null : state.wireName();
        List<Row> rows = conflicts.stream().map(c -> new Row("/conflicts/" + c.id(), c.action(), c.target(),
                c.winnerPolicyId(), c.synthesisState().wireName(), c.synthesisState().label(),
                c.inboxStatus().wireName(), Moment.of(c.receivedAt(), now))).toList();
        List<Chip> stateChips = new ArrayList<>();
        for (Map.Entry<SynthesisState, Long> e : counts.bySynthesisState().entrySet()) {
            stateChips.add(new Chip(e.getKey().label(), e.getValue(), link(status, e.getKey().wireName(), null),
                    e.getKey() == state));
        }
        List<Chip> statusChips = new ArrayList<>();
        for (Map.Entry<InboxStatus, Long> e : counts.byInboxStatus().entrySet()) {
            statusChips.add(new Chip(e.getKey().label(), e.getValue(), link(e.getKey().wireName(), stateName, null),
                    e.getKey() == inboxStatus));
        }
        List<Option> statusOptions = new ArrayList<>();
        statusOptions.add(new Option("", "any", inboxStatus == null));
        for (InboxStatus s : InboxStatus.values()) {
            statusOptions.add(new Option(s.wireName(), s.label(), s == inboxStatus));
        }
        List<Option> stateOptions = new ArrayList<>();
        stateOptions.add(new Option("", "any", state == null));
        for (SynthesisState s : SynthesisState.values()) {
            stateOptions.add(new Option(s.wireName(), s.label(), s == state));
        }
        return new InboxPage(rows, stateChips, statusChips, counts.total(), statusOptions, stateOptions,
                olderCursor == null ? null : link(status, stateName, olderCursor),
                notFirstPage ? link(status, stateName, null) : null,
                inboxStatus != null || state != null);
    }

    /** The inbox URL for a filter and a keyset position; only known values and this service's cursors get here. */
    static String link(String inboxStatus, String state, String after) {
        List<String> query = new ArrayList<>();
        if (inboxStatus != null) {
            query.add("inbox_status=" + encode(inboxStatus));
        }
        if (state != null) {
            query.add("synthesis_state=" + encode(state));
        }
        if (after != null) {
            query.add("after=" + encode(after));
        }
        return query.isEmpty() ? "/" : "/?" + String.join("&", query);
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
