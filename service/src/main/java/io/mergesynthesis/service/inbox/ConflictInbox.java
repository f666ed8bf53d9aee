package io.mergesynthesis.service.inbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.service.auth.Caller;
import io.mergesynthesis.service.core.InboxStatus;
import io.mergesynthesis.service.core.Resolution;
import io.mergesynthesis.service.core.StoredConflict;
import io.mergesynthesis.service.db.ConflictStore;
import io.mergesynthesis.service.db.EventLog;
import io.mergesynthesis.service.db.EventLog.EventType;
import io.mergesynthesis.service.db.ScopedTransactions;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * The admin inbox's two writes: acknowledge and resolve. Each is one transaction in the caller's org: a
 * conditional UPDATE that either changes the row (and then appends its event beside it) or changes nothing,
 * in which case the committed row decides the answer. The inbox never touches the suggested merge or the
 * synthesis state; those belong to the worker pool.
 */
public final class ConflictInbox {

    private final ScopedTransactions transactions;
    private final ObjectMapper json;

    public ConflictInbox(ScopedTransactions transactions, ObjectMapper json) {
        this.transactions = transactions;
        this.json = json;
    }

    /** What an acknowledge or a resolve did. {@code conflict} is the row as it stands afterwards (absent for NOT_FOUND). */
    public record ActionResult(Kind kind, Optional<StoredConflict> conflict, String message) {

        static ActionResult of(Kind kind, StoredConflict conflict, String message) {
            return new ActionResult(kind, Optional.of(conflict), message);
        }
    }

    public enum Kind {
        /** This call changed the conflict and wrote its event. */
        CHANGED,
        /** The conflict already was in the asked-for state; nothing was written. */
        UNCHANGED,
        /** Not this org's conflict, or no such conflict: the two are indistinguishable on purpose. */
        NOT_FOUND,
        /** The conflict is in a state that contradicts the request; nothing was written. */
        REFUSED
    }

    /**
     * Idempotent. Acknowledging an acknowledged or an already resolved conflict changes nothing: resolving
     * implies the admin has seen it, and an inbox that acknowledges whatever it opens should not see errors.
     */
    public ActionResult acknowledge(Caller caller, UUID id) {
        UUID org = caller.orgId();
        return transactions.inOrg(org, handle -> {
            Optional<StoredConflict> changed = ConflictStore.acknowledge(handle, org, id, actorJson(caller));
            if (changed.isPresent()) {
                StoredConflict c = changed.get();
                EventLog.append(handle, org, id, EventType.CONFLICT_ACKNOWLEDGED, details(c, caller));
                return ActionResult.of(Kind.CHANGED, c, "acknowledged");
            }
            return current(handle, org, id)
                    .map(c -> ActionResult.of(Kind.UNCHANGED, c, "already " + c.inboxStatus().wireName() + ": nothing changed"))
                    .orElseGet(ConflictInbox::notFound);
        });
    }

    /**
     * Resolution is final: the first resolution to commit wins. Repeating the winning resolution is a no-op
     * (the stored note stays); a different one is refused with the stored state, as is accepting a suggestion
     * that the worker has not written yet.
     */
    public ActionResult resolve(Caller caller, UUID id, Resolution resolution, String note) {
        UUID org = caller.orgId();
        return transactions.inOrg(org, handle -> {
            Optional<StoredConflict> changed = ConflictStore.resolve(handle, org, id, resolution, note,
                    actorJson(caller));
            if (changed.isPresent()) {
                StoredConflict c = changed.get();
                EventLog.append(handle, org, id, EventType.CONFLICT_RESOLVED, details(c, caller));
                return ActionResult.of(Kind.CHANGED, c, "resolved as " + resolution.wireName());
            }
            Optional<StoredConflict> current = current(handle, org, id);
            if (current.isEmpty()) {
                return notFound();
            }
            StoredConflict c = current.get();
            if (c.inboxStatus() == InboxStatus.RESOLVED) {
                if (resolution == c.resolution()) {
                    return ActionResult.of(Kind.UNCHANGED, c, "already resolved as " + c.resolution().wireName() + ": nothing changed");
                }
                return ActionResult.of(Kind.REFUSED, c, "already resolved as " + c.resolution().wireName()
                        + "; a resolution is final and cannot be changed to " + resolution.wireName());
            }
            // Not resolved, yet the UPDATE matched nothing: only the missing suggested merge can explain it.
            return ActionResult.of(Kind.REFUSED, c, "no suggested merge yet (synthesis state " + c.synthesisState().wireName()
                    + "): accepted_suggestion needs one; resolve as manual or rejected_suggestion, or wait");
        });
    }

    /** The committed row; this statement's fresh snapshot sees whatever a concurrent winner committed. */
    private static Optional<StoredConflict> current(Handle handle, UUID org, UUID id) {
        return ConflictStore.find(handle, org, id);
    }

    private String details(StoredConflict c, Caller caller) {
        ObjectNode details = json.createObjectNode();
        details.put("dedup_key", c.dedupKey());
        details.put("action", c.action());
        details.put("target", c.target());
        details.put("inbox_status", c.inboxStatus().wireName());
        if (c.resolution() != null) {
            details.put("resolution", c.resolution().wireName());
            details.put("resolution_note", c.resolutionNote());
            details.put("synthesis_state", c.synthesisState().wireName());
            if (c.resolution() == Resolution.ACCEPTED_SUGGESTION) {
                AcceptedMerge.addTo(details, c.suggestedMergeJson(), json);
            }
        }
        caller.actor().addTo(details);
        try {
            return json.writeValueAsString(details);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise event details", e);
        }
    }

    /** The actor as the conflict's row keeps it: what its page and {@code GET /v1/conflicts/{id}} show. */
    private String actorJson(Caller caller) {
        try {
            return json.writeValueAsString(caller.actor().asDecider(json.createObjectNode()));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise the actor", e);
        }
    }

    private static ActionResult notFound() {
        return new ActionResult(Kind.NOT_FOUND, Optional.empty(), "no such conflict");
    }
}
