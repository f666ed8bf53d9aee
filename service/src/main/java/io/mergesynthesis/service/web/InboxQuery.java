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
 *
 * <p>With no inbox status asked for, the page shows the conflicts not yet resolved (open or acknowledged): what an
 * admin still has to decide. {@code inbox_status=all} shows every conflict, resolved ones included. The JSON API
 * keeps its own default (every status).
 *
 * @param everyStatus {@code inbox_status=all}: resolved conflicts too (only when {@code inboxStatus} is null)
 */
record InboxQuery(InboxStatus inboxStatus, boolean everyStatus, SynthesisState state, String action, String q,
                  Order order, PageCursor position, Direction direction) {

    static final String OLDEST = "oldest";
    /** The inbox status filter's word for "resolved ones too". */
    static final String EVERY_STATUS = "all";

    static InboxQuery of(String inboxStatus, String state, String action, String q, String sort, String after,
                         String before) {
        String search = q == null || q.isBlank() ? null : q.strip();
        PageCursor onward = cursor(after);
        PageCursor back = onward == null ? cursor(before) : null;
        InboxStatus status = InboxStatus.fromWireName(inboxStatus).orElse(null);
        return new InboxQuery(status, status == null && EVERY_STATUS.equals(inboxStatus),
                SynthesisState.fromWireName(state).orElse(null),
                InboxFilter.knownAction(action) ? action : null,
                search != null && InboxFilter.prefixProblem(search) == null ? search : null,
                OLDEST.equals(sort) ? Order.OLDEST_FIRST : Order.NEWEST_FIRST,
                onward != null ? onward : back, back != null ? Direction.BACK : Direction.ONWARD);
    }

    InboxFilter filter() {
        return new InboxFilter(inboxStatus, state, action, q, unresolvedOnly());
    }

    /** The page's default: no status asked for, so the conflicts still to decide. */
    boolean unresolvedOnly() {
        return inboxStatus == null && !everyStatus;
    }

    /** Whether the person narrowed the page beyond its default (which "Clear filters" returns to). */
    boolean filtered() {
        return inboxStatus != null || everyStatus || state != null || action != null || q != null;
    }

    /** The inbox status as the filter's links and forms carry it: a status, {@code all}, or null for the default. */
    String statusParameter() {
        return inboxStatus != null ? inboxStatus.wireName() : everyStatus ? EVERY_STATUS : null;
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
        return new InboxQuery(inboxStatus, everyStatus, other, action, q, order, null, Direction.ONWARD);
    }

    InboxQuery withStatus(InboxStatus other) {
        return new InboxQuery(other, false, state, action, q, order, null, Direction.ONWARD);
    }

    /** This filter with resolved conflicts shown too ({@code true}) or left out (the default). */
    InboxQuery withEveryStatus(boolean every) {
        return new InboxQuery(null, every, state, action, q, order, null, Direction.ONWARD);
    }

    private String query(String cursorName, PageCursor cursor) {
        List<String> query = new ArrayList<>();
        add(query, "inbox_status", statusParameter());
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
