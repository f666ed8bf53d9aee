package io.mergesynthesis.service.inbox;

import io.mergesynthesis.service.auth.Caller;
import io.mergesynthesis.service.core.InboxStatus;
import io.mergesynthesis.service.core.Resolution;
import io.mergesynthesis.service.core.StoredConflict;
import io.mergesynthesis.service.core.WireName;
import io.mergesynthesis.service.requeue.ConflictRequeue;
import io.mergesynthesis.service.requeue.Requester;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * One action on many conflicts of the caller's org: acknowledge, resolve as rejected or manual with one note, or
 * try again. Each conflict goes through the very use case its own page calls ({@link ConflictInbox},
 * {@link ConflictRequeue}), in its own transaction, so the rules, the events and the org scope are the single
 * action's; a conflict that cannot take the action is refused with the reason and the others go on.
 */
public final class BulkActions {

    /** The most conflicts one request acts on: a few seconds of short transactions at most. */
    public static final int MAX_CONFLICTS = 500;

    private final InboxReads reads;
    private final ConflictInbox inbox;
    private final ConflictRequeue requeue;

    public BulkActions(InboxReads reads, ConflictInbox inbox, ConflictRequeue requeue) {
        this.reads = reads;
        this.inbox = inbox;
        this.requeue = requeue;
    }

    public enum Operation implements WireName {
        ACKNOWLEDGE("acknowledge", "Acknowledge"),
        RESOLVE_REJECTED("resolve_rejected", "Resolve as rejected"),
        RESOLVE_MANUAL("resolve_manual", "Resolve as manual"),
        RETRY("retry", "Try again");

        private final String wireName;
        private final String label;

        Operation(String wireName, String label) {
            this.wireName = wireName;
            this.label = label;
        }

        @Override
        public String wireName() {
            return wireName;
        }

        public String label() {
            return label;
        }

        public static Optional<Operation> fromWireName(String name) {
            return WireName.lookup(Operation.class, name);
        }
    }

    /** A conflict the action left as it was, and why; {@code target} is null when no such conflict is there. */
    public record Refusal(UUID id, String target, String reason) {
    }

    /**
     * What one bulk action did.
     *
     * @param capped more conflicts matched the filter than {@link #MAX_CONFLICTS}; the rest are untouched
     */
    public record Summary(Operation operation, List<StoredConflict> changed, List<Refusal> refused, boolean capped) {
    }

    /** Acts on the conflicts named, each once, in the order given, up to {@link #MAX_CONFLICTS}. */
    public Summary onConflicts(Caller caller, Operation operation, List<UUID> ids, String note) {
        List<UUID> distinct = new ArrayList<>(new LinkedHashSet<>(ids));
        boolean capped = distinct.size() > MAX_CONFLICTS;
        return apply(caller, operation, capped ? distinct.subList(0, MAX_CONFLICTS) : distinct, note, capped);
    }

    /** Acts on the newest {@link #MAX_CONFLICTS} conflicts that pass {@code filter}, as the inbox lists them. */
    public Summary onMatching(Caller caller, Operation operation, InboxFilter filter, String note) {
        PageOfConflicts matching = reads.page(caller.orgId(), filter, null, MAX_CONFLICTS);
        List<UUID> ids = matching.conflicts().stream().map(StoredConflict::id).toList();
        return apply(caller, operation, ids, note, matching.next() != null);
    }

    private Summary apply(Caller caller, Operation operation, List<UUID> ids, String note, boolean capped) {
        List<StoredConflict> changed = new ArrayList<>();
        List<Refusal> refused = new ArrayList<>();
        for (UUID id : ids) {
            Outcome outcome = switch (operation) {
                case ACKNOWLEDGE -> acknowledged(inbox.acknowledge(caller, id));
                case RESOLVE_REJECTED -> resolved(inbox.resolve(caller, id, Resolution.REJECTED_SUGGESTION, note),
                        Resolution.REJECTED_SUGGESTION);
                case RESOLVE_MANUAL -> resolved(inbox.resolve(caller, id, Resolution.MANUAL, note), Resolution.MANUAL);
                case RETRY -> retried(requeue.one(Requester.of(caller), caller.orgId(), id));
            };
            if (outcome.reason() == null) {
                changed.add(outcome.conflict());
            } else {
                refused.add(new Refusal(id, outcome.conflict() == null ? null : outcome.conflict().target(),
                        outcome.reason()));
            }
        }
        return new Summary(operation, changed, refused, capped);
    }

    /** The row after the action, and why nothing changed (null when it did). */
    private record Outcome(StoredConflict conflict, String reason) {
    }

    private static final String NOT_FOUND = "not found in this org's inbox";

    private static Outcome acknowledged(ConflictInbox.ActionResult result) {
        StoredConflict c = result.conflict().orElse(null);
        return switch (result.kind()) {
            case CHANGED -> new Outcome(c, null);
            case NOT_FOUND -> new Outcome(null, NOT_FOUND);
            case UNCHANGED, REFUSED -> new Outcome(c, "already " + c.inboxStatus().wireName());
        };
    }

    private static Outcome resolved(ConflictInbox.ActionResult result, Resolution asked) {
        StoredConflict c = result.conflict().orElse(null);
        return switch (result.kind()) {
            case CHANGED -> new Outcome(c, null);
            case NOT_FOUND -> new Outcome(null, NOT_FOUND);
            case UNCHANGED -> new Outcome(c, "already resolved as " + asked.wireName());
            case REFUSED -> new Outcome(c, c.inboxStatus() == InboxStatus.RESOLVED
                    ? "already resolved as " + c.resolution().wireName() + ": a resolution is final"
                    : result.message());
        };
    }

    private static Outcome retried(ConflictRequeue.Single result) {
        StoredConflict c = result.conflict().orElse(null);
        return switch (result.kind()) {
            case REQUEUED -> new Outcome(c, null);
            case NOT_FOUND -> new Outcome(null, NOT_FOUND);
            case NOT_MARKED -> new Outcome(c, "not retryable: its synthesis is " + c.synthesisState().label()
                    + "; only a failed synthesis can be tried again");
        };
    }
}
