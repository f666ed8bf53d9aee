package io.mergesynthesis.service.requeue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.service.auth.Caller;
import java.util.UUID;

/**
 * Who asked for a re-queue, as its event records it: a token (by id and role, as the inbox's events name their
 * actor) or the {@code requeue} command run by an operator on a machine with database access.
 *
 * @param requestedBy {@code token} or {@code cli}
 * @param tokenId     the token's id; null for the command
 * @param role        the token's role; null for the command
 */
public record Requester(String requestedBy, UUID tokenId, String role) {

    private static final ObjectMapper JSON = new ObjectMapper();

    public static Requester of(Caller caller) {
        return new Requester("token", caller.tokenId(), caller.role().wireName());
    }

    /** The operator's command: no token stands behind it, only access to the database. */
    public static Requester commandLine() {
        return new Requester("cli", null, null);
    }

    /** Who asked, as the attempt history's line says it: the token's role and id, as the event names them. */
    String inWords() {
        if (tokenId == null) {
            return "the operator's requeue command";
        }
        return "token " + tokenId + " (role " + role + ")";
    }

    /** The fields this adds to each {@code synthesis_requeued} event's details. */
    String detailsJson() {
        ObjectNode details = JSON.createObjectNode().put("requested_by", requestedBy);
        if (tokenId != null) {
            details.put("token_id", tokenId.toString());
        }
        if (role != null) {
            details.put("role", role);
        }
        return details.toString();
    }
}
