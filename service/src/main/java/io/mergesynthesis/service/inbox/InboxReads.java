package io.mergesynthesis.service.inbox;

import io.mergesynthesis.service.core.InboxCounts;
import io.mergesynthesis.service.core.StoredConflict;
import io.mergesynthesis.service.db.AttemptHistory;
import io.mergesynthesis.service.db.ConflictStore;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.db.UsageLedger;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * What the admin inbox reads, for the API and the web pages alike: pages of an org's conflicts (keyset paging,
 * newest first), their counts, and one conflict with its calls and history. Each read runs in one transaction
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

    /** Up to {@code size} conflicts that pass {@code filter}, strictly after {@code after} when it is given. */
    public PageOfConflicts page(UUID org, InboxFilter filter, PageCursor after, int size) {
        return transactions.inOrg(org, handle -> page(handle, org, filter, after, size));
    }

    public PageWithCounts pageWithCounts(UUID org, InboxFilter filter, PageCursor after, int size) {
        return transactions.inOrg(org, handle -> new PageWithCounts(page(handle, org, filter, after, size),
                ConflictStore.counts(handle, org)));
    }

    public Optional<ConflictWithHistory> conflict(UUID org, UUID id) {
        return transactions.inOrg(org, handle -> ConflictStore.find(handle, org, id)
                .map(c -> new ConflictWithHistory(c, UsageLedger.callsOf(handle, id), AttemptHistory.of(handle, id))));
    }

    private static PageOfConflicts page(Handle handle, UUID org, InboxFilter filter, PageCursor after, int size) {
        // One row more than asked tells whether another page exists without a count query.
        var request = new ConflictStore.PageRequest(filter.inboxStatus(), filter.synthesisState(),
                after == null ? null : after.receivedAt(), after == null ? null : after.id(), size + 1);
        List<StoredConflict> rows = ConflictStore.page(handle, org, request);
        if (rows.size() <= size) {
            return new PageOfConflicts(rows, null);
        }
        rows = rows.subList(0, size);
        StoredConflict last = rows.get(size - 1);
        return new PageOfConflicts(rows, new PageCursor(last.receivedAt(), last.id()));
    }
}
