package io.mergesynthesis.service.inbox;

import io.mergesynthesis.service.core.Deciders;
import io.mergesynthesis.service.core.InboxCounts;
import io.mergesynthesis.service.core.StoredConflict;
import io.mergesynthesis.service.core.SynthesisState;
import io.mergesynthesis.service.db.AttemptHistory;
import io.mergesynthesis.service.db.ConflictStore;
import io.mergesynthesis.service.db.LlmBatches;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.db.UsageLedger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * What the admin inbox reads, for the API and the web pages alike: pages of an org's conflicts (keyset paging
 * both ways, newest or oldest first, filtered and searched), their counts, and one conflict with its calls and
 * history. Each read runs in one read-only snapshot scoped to the org asked for; another org's conflict is simply
 * not there.
 */
public final class InboxReads {

    private final ScopedTransactions transactions;

    public InboxReads(ScopedTransactions transactions) {
        this.transactions = transactions;
    }

    /**
     * A page with the counts of the whole inbox beside it, and who acknowledged or resolved the page's conflicts,
     * all read in one transaction.
     */
    public record PageWithCounts(PageOfConflicts page, InboxCounts counts, Map<UUID, Deciders> deciders) {
    }

    /** The order a page lists conflicts in. */
    public enum Order {
        NEWEST_FIRST,
        OLDEST_FIRST
    }

    /** Which way a page goes from its keyset position, in the page's order. */
    public enum Direction {
        /** Past the position: older ones when newest first. From the first page when there is no position. */
        ONWARD,
        /** Before the position, towards the first page. */
        BACK
    }

    /** Up to {@code size} conflicts that pass {@code filter}, newest first, strictly older than {@code after}. */
    public PageOfConflicts page(UUID org, InboxFilter filter, PageCursor after, int size) {
        return transactions.readInOrg(org, handle -> page(handle, org, filter, after, Direction.ONWARD,
                Order.NEWEST_FIRST, size));
    }

    public PageWithCounts pageWithCounts(UUID org, InboxFilter filter, PageCursor after, int size) {
        return pageWithCounts(org, filter, after, Direction.ONWARD, Order.NEWEST_FIRST, size);
    }

    /**
     * A page either way from {@code position}, in {@code order} whichever way it went, with the counts of the
     * whole inbox beside it, both read in one transaction.
     */
    public PageWithCounts pageWithCounts(UUID org, InboxFilter filter, PageCursor position, Direction direction,
                                         Order order, int size) {
        return transactions.readInOrg(org, handle -> {
            PageOfConflicts page = page(handle, org, filter, position, direction, order, size);
            return new PageWithCounts(page, ConflictStore.counts(handle, org), ConflictStore.decidersOf(handle, org,
                    page.conflicts().stream().map(StoredConflict::id).toList()));
        });
    }

    /** How many of the org's conflicts are in each synthesis state and inbox status: a few rows, at any size. */
    public InboxCounts counts(UUID org) {
        return transactions.readInOrg(org, handle -> ConflictStore.counts(handle, org));
    }

    public Optional<ConflictWithHistory> conflict(UUID org, UUID id) {
        return transactions.readInOrg(org, handle -> ConflictStore.find(handle, org, id)
                .map(c -> new ConflictWithHistory(c, UsageLedger.callsOf(handle, id), AttemptHistory.of(handle, id),
                        ConflictStore.deciders(handle, org, id),
                        c.synthesisState() == SynthesisState.PENDING
                                ? ConflictStore.aheadInOrg(handle, org, id, ConflictWithHistory.AHEAD_COUNTED_TO)
                                : null,
                        c.synthesisState() == SynthesisState.BATCHED
                                ? LlmBatches.ofConflict(handle, id).orElse(null) : null)));
    }

    private static PageOfConflicts page(Handle handle, UUID org, InboxFilter filter, PageCursor position,
                                        Direction direction, Order order, int size) {
        boolean back = direction == Direction.BACK && position != null;
        boolean towardsNewer = (order == Order.OLDEST_FIRST) != back;
        // One row more than asked tells whether another page exists that way without a count query.
        List<StoredConflict> rows = ConflictStore.page(handle, org, new ConflictStore.PageRequest(
                filter.inboxStatus(), filter.synthesisState(), filter.action(), filter.prefix(),
                filter.unresolvedOnly(), position == null ? null : position.receivedAt(),
                position == null ? null : position.id(),
                towardsNewer, size + 1));
        boolean more = rows.size() > size;
        rows = more ? rows.subList(0, size) : rows;
        if (!back) {
            return new PageOfConflicts(rows, more ? cursorOf(rows.get(size - 1)) : null,
                    position != null && !rows.isEmpty() ? cursorOf(rows.get(0)) : null);
        }
        if (!more) {
            // Fewer than a page lies back there: that is the start, and the first page shows it whole.
            return page(handle, org, filter, null, Direction.ONWARD, order, size);
        }
        List<StoredConflict> inOrder = new ArrayList<>(rows);
        Collections.reverse(inOrder);
        // The position's own row lies onward of all of these, so an onward page exists.
        return new PageOfConflicts(inOrder, cursorOf(inOrder.get(size - 1)), cursorOf(inOrder.get(0)));
    }

    private static PageCursor cursorOf(StoredConflict c) {
        return new PageCursor(c.receivedAt(), c.id());
    }
}
