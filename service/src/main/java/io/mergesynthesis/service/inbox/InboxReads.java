package io.mergesynthesis.service.inbox;

import io.mergesynthesis.service.core.InboxCounts;
import io.mergesynthesis.service.core.StoredConflict;
import io.mergesynthesis.service.db.AttemptHistory;
import io.mergesynthesis.service.db.ConflictStore;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.db.UsageLedger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * What the admin inbox reads, for the API and the web pages alike: pages of an org's conflicts (keyset paging
 * both ways, newest first, filtered and searched), their counts, and one conflict with its calls and history. Each read runs in one transaction
 * scoped to the org asked for; another org's conflict is simply not there.
 */
public final class InboxReads {

    private final ScopedTransactions transactions;

    public InboxReads(ScopedTransactions transactions) {
        this.transactions = transactions;
    }

    /** A page with the counts of the whole inbox beside it, both read in one transaction. */
    public record PageWithCounts(PageOfConflicts page, InboxCounts counts) {
    }

    /** Which way a page goes from its keyset position. */
    public enum Direction {
        /** Strictly older than the position; from the newest when there is none. */
        OLDER,
        /** Strictly newer than the position. */
        NEWER
    }

    /** Up to {@code size} conflicts that pass {@code filter}, strictly older than {@code after} when it is given. */
    public PageOfConflicts page(UUID org, InboxFilter filter, PageCursor after, int size) {
        return transactions.inOrg(org, handle -> page(handle, org, filter, after, Direction.OLDER, size));
    }

    public PageWithCounts pageWithCounts(UUID org, InboxFilter filter, PageCursor after, int size) {
        return pageWithCounts(org, filter, after, Direction.OLDER, size);
    }

    /**
     * A page either way from {@code position}, newest first whichever way it went, with the counts of the whole
     * inbox beside it, both read in one transaction.
     */
    public PageWithCounts pageWithCounts(UUID org, InboxFilter filter, PageCursor position, Direction direction,
                                         int size) {
        return transactions.inOrg(org, handle -> new PageWithCounts(
                page(handle, org, filter, position, direction, size), ConflictStore.counts(handle, org)));
    }

    public Optional<ConflictWithHistory> conflict(UUID org, UUID id) {
        return transactions.inOrg(org, handle -> ConflictStore.find(handle, org, id)
                .map(c -> new ConflictWithHistory(c, UsageLedger.callsOf(handle, id), AttemptHistory.of(handle, id))));
    }

    private static PageOfConflicts page(Handle handle, UUID org, InboxFilter filter, PageCursor position,
                                        Direction direction, int size) {
        boolean newer = direction == Direction.NEWER && position != null;
        // One row more than asked tells whether another page exists that way without a count query.
        List<StoredConflict> rows = ConflictStore.page(handle, org, new ConflictStore.PageRequest(
                filter.inboxStatus(), filter.synthesisState(), filter.action(), filter.prefix(),
                position == null ? null : position.receivedAt(), position == null ? null : position.id(), newer,
                size + 1));
        boolean more = rows.size() > size;
        rows = more ? rows.subList(0, size) : rows;
        if (!newer) {
            return new PageOfConflicts(rows, more ? cursorOf(rows.get(size - 1)) : null,
                    position != null && !rows.isEmpty() ? cursorOf(rows.get(0)) : null);
        }
        if (!more) {
            // Fewer than a page is newer: that is the top, and the newest page shows it whole.
            return page(handle, org, filter, null, Direction.OLDER, size);
        }
        List<StoredConflict> newestFirst = new ArrayList<>(rows);
        Collections.reverse(newestFirst);
        // The position's own row is older than all of these, so an older page exists.
        return new PageOfConflicts(newestFirst, cursorOf(newestFirst.get(size - 1)), cursorOf(newestFirst.get(0)));
    }

    private static PageCursor cursorOf(StoredConflict c) {
        return new PageCursor(c.receivedAt(), c.id());
    }
}
