package io.mergesynthesis.service.requeue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.service.auth.Actor;
import io.mergesynthesis.service.auth.Caller;

/**
 * Who asked for a re-queue, as its event records it: a person or a token (as every change names its actor, see
 * {@link Actor}) with the role they acted in, or the {@code requeue} command run by an operator on a machine with
 * database access.
 *
 * @param actor the person or token; null for the command
 * @param role  the caller's role; null for the command
 */
public record Requester(Actor actor, String role) {

    private static final ObjectMapper JSON = new ObjectMapper();

    public static Requester of(Caller caller) {
        return new Requester(caller.actor(), caller.role().wireName());
    }

    /** The operator's command: no token stands behind it, only access to the database. */
    public static Requester commandLine() {
        return new Requester(null, null);
    }

    /** Who asked, as the attempt history's line says it: the person's name, or the token's label or id. */
    String inWords() {
        if (actor == null) {
            return "the operator's requeue command";
        }
        return actor.inWords() + " (role " + role + ")";
    }

    /** The fields this adds to each {@code synthesis_requeued} event's details. */
    String detailsJson() {
        ObjectNode details = JSON.createObjectNode();
        if (actor == null) {
            details.put("requested_by", "cli");
        } else {
            actor.addTo(details).put("role", role);
        }
        return details.toString();
    }
}
