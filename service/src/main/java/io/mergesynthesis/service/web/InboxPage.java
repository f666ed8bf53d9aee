package io.mergesynthesis.service.web;

import io.mergesynthesis.service.core.StoredConflict;
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

    static InboxPage of(List<StoredConflict> conflicts, InboxCounts counts, String inboxStatus, String state,
                        String olderCursor, boolean notFirstPage, Instant now) {
        List<Row> rows = conflicts.stream().map(c -> new Row("/conflicts/" + c.id(), c.action(), c.target(),
                c.winnerPolicyId(), c.synthesisState(), Labels.state(c.synthesisState()), c.inboxStatus(),
                Moment.of(c.receivedAt(), now))).toList();
        List<Chip> stateChips = new ArrayList<>();
        for (Map.Entry<String, Long> e : counts.bySynthesisState().entrySet()) {
            stateChips.add(new Chip(Labels.state(e.getKey()), e.getValue(), link(inboxStatus, e.getKey(), null),
                    e.getKey().equals(state)));
        }
        List<Chip> statusChips = new ArrayList<>();
        for (Map.Entry<String, Long> e : counts.byInboxStatus().entrySet()) {
            statusChips.add(new Chip(e.getKey(), e.getValue(), link(e.getKey(), state, null),
                    e.getKey().equals(inboxStatus)));
        }
        List<Option> statusOptions = new ArrayList<>();
        statusOptions.add(new Option("", "any", inboxStatus == null));
        InboxCounts.INBOX_STATUSES.forEach(s -> statusOptions.add(new Option(s, s, s.equals(inboxStatus))));
        List<Option> stateOptions = new ArrayList<>();
        stateOptions.add(new Option("", "any", state == null));
        InboxCounts.SYNTHESIS_STATES.forEach(s -> stateOptions.add(new Option(s, Labels.state(s), s.equals(state))));
        return new InboxPage(rows, stateChips, statusChips, counts.total(), statusOptions, stateOptions,
                olderCursor == null ? null : link(inboxStatus, state, olderCursor),
                notFirstPage ? link(inboxStatus, state, null) : null,
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
