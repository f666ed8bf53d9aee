package io.mergesynthesis.service.web;

import io.mergesynthesis.service.core.InboxStatus;
import io.mergesynthesis.service.core.SynthesisState;
import io.mergesynthesis.service.inbox.InboxFilter;
import io.mergesynthesis.service.inbox.InboxReads.Direction;
import io.mergesynthesis.service.inbox.InboxReads.Order;
import io.mergesynthesis.service.inbox.PageCursor;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What an inbox URL asks for: the filters, the search text, the order ({@code sort=oldest}, newest first
 * otherwise) and a keyset position with its direction ({@code after=} onward, {@code before=} back towards the first
 * page). Read leniently, as links are: an unknown value or a damaged cursor is dropped, so a stale bookmark still
 * opens a page. Every inbox link the pages write is built here.
 */
record InboxQuery(InboxStatus inboxStatus, SynthesisState state, String action, String q, Order order,
                  PageCursor position, Direction direction) {

    static final String OLDEST = "oldest";

    static InboxQuery of(String inboxStatus, String state, String action, String q, String sort, String after,
                         String before) {
        String search = q == null || q.isBlank() ? null : q.strip();
        PageCursor onward = cursor(after);
        PageCursor back = onward == null ? cursor(before) : null;
        return new InboxQuery(InboxStatus.fromWireName(inboxStatus).orElse(null),
                SynthesisState.fromWireName(state).orElse(null),
                InboxFilter.knownAction(action) ? action : null,
                search != null && InboxFilter.prefixProblem(search) == null ? search : null,
                OLDEST.equals(sort) ? Order.OLDEST_FIRST : Order.NEWEST_FIRST,
                onward != null ? onward : back, back != null ? Direction.BACK : Direction.ONWARD);
    }

    InboxFilter filter() {
        return new InboxFilter(inboxStatus, state, action, q);
    }

    boolean filtered() {
        return filter().filters();
    }

    boolean oldestFirst() {
        return order == Order.OLDEST_FIRST;
    }

    /** This filter and order, at the first page. */
    String first() {
        return "/" + query(null, null);
    }

    String onward(PageCursor cursor) {
        return "/" + query("after", cursor);
    }

    String back(PageCursor cursor) {
        return "/" + query("before", cursor);
    }

    /** The JSON view of this very page, for the script that keeps it current. */
    String live() {
        return "/live/inbox" + query(direction == Direction.BACK ? "before" : "after", position);
    }

    /** This filter with another synthesis state or inbox status, from the first page. */
    InboxQuery withState(SynthesisState other) {
        return new InboxQuery(inboxStatus, other, action, q, order, null, Direction.ONWARD);
    }

    InboxQuery withStatus(InboxStatus other) {
        return new InboxQuery(other, state, action, q, order, null, Direction.ONWARD);
    }

    private String query(String cursorName, PageCursor cursor) {
        List<String> query = new ArrayList<>();
        add(query, "inbox_status", inboxStatus == null ? null : inboxStatus.wireName());
        add(query, "synthesis_state", state == null ? null : state.wireName());
        add(query, "action", action);
        add(query, "q", q);
        add(query, "sort", oldestFirst() ? OLDEST : null);
        if (cursor != null) {
            add(query, cursorName, cursor.encode());
        }
        return query.isEmpty() ? "" : "?" + String.join("&", query);
    }

    private static void add(List<String> query, String name, String value) {
        if (value != null) {
            query.add(name + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8));
        }
    }

    private static PageCursor cursor(String text) {
        if (text == null) {
            return null;
        }
        try {
            return PageCursor.decode(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
