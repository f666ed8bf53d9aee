package io.mergesynthesis.service.auth;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.UUID;

/**
 * The details of the {@code token_minted} and {@code token_revoked} events: which token (id, prefix, role; never
 * the secret nor its hash), and who acted, as the inbox's events name their actor (the acting token's id and role)
 * or {@code cli} for the command line.
 */
final class TokenEvents {

    private static final ObjectMapper JSON = new ObjectMapper();

    private TokenEvents() {
    }

    static ObjectNode details(UUID token, String prefix, Role role, Caller by) {
        ObjectNode details = JSON.createObjectNode()
                .put("subject_token_id", token.toString())
                .put("subject_token_role", role.wireName());
        if (prefix != null) {
            details.put("subject_token_prefix", prefix);
        }
        if (by == null) {
            details.put("requested_by", "cli");
        } else {
            details.put("requested_by", "token").put("token_id", by.tokenId().toString()).put("role",
                    by.role().wireName());
        }
        return details;
    }
}
