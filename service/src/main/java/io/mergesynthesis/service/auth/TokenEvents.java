package io.mergesynthesis.service.auth;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.UUID;

/**
 * The details of the {@code token_minted} and {@code token_revoked} events: which token (id, prefix, label, role;
 * never the secret nor its hash), and who acted, as every change names its actor (a person or a token, see
 * {@link Actor}) or {@code cli} for the command line.
 */
final class TokenEvents {

    private static final ObjectMapper JSON = new ObjectMapper();

    private TokenEvents() {
    }

    static ObjectNode details(UUID token, String prefix, String label, Role role, Caller by) {
        ObjectNode details = JSON.createObjectNode()
                .put("subject_token_id", token.toString())
                .put("subject_token_role", role.wireName());
        if (prefix != null) {
            details.put("subject_token_prefix", prefix);
        }
        if (label != null) {
            details.put("subject_token_label", label);
        }
        if (by == null) {
            details.put("requested_by", "cli");
        } else {
            by.actor().addTo(details).put("role", by.role().wireName());
        }
        return details;
    }
}
