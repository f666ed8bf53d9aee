package io.mergesynthesis.service.auth;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.UUID;

/**
 * Who made a change: a person who signed in with the identity provider (subject, email and name from the ID token),
 * or a token (its id and label). Every change records it, in its event's details and wherever the pages show who
 * acted, so that "who changed this policy" has an answer a person recognises.
 *
 * @param tokenId    the acting token's id; null for a person
 * @param tokenLabel the acting token's label; null for a person, or a token minted before labels existed
 * @param subject    the person's subject at the identity provider; null for a token
 * @param email      the person's email, when the provider gave one
 * @param name       the person's name, when the provider gave one
 */
public record Actor(UUID tokenId, String tokenLabel, String subject, String email, String name) {

    public static Actor token(UUID id, String label) {
        return new Actor(id, label, null, null, null);
    }

    public static Actor person(String subject, String email, String name) {
        if (subject == null || subject.isEmpty()) {
            throw new IllegalArgumentException("a person is known by a subject");
        }
        return new Actor(null, null, subject, email, name);
    }

    public boolean isPerson() {
        return subject != null;
    }

    /** How pages name the actor: a person by name, else email, else subject; a token by label, else id. */
    public String inWords() {
        if (isPerson()) {
            return name != null && !name.isBlank() ? name : email != null && !email.isBlank() ? email : subject;
        }
        return tokenLabel != null ? "token " + tokenLabel : "token " + tokenId;
    }

    /**
     * Adds the actor to an event's details: {@code requested_by} ({@code person} or {@code token}) and the
     * person's {@code user_id}, {@code user_email} and {@code user_name}, or the token's {@code token_id} and
     * {@code token_label}. The export turns these into ECS {@code user.*} and CEF {@code suid}/{@code suser}.
     */
    /**
     * The actor as a conflict's row keeps who decided it: {@code type} ({@code person} or {@code token}),
     * {@code id} (subject or token id), and {@code email} and {@code name} (a token's name is its label).
     */
    public ObjectNode asDecider(ObjectNode into) {
        if (isPerson()) {
            into.put("type", "person").put("id", subject);
            if (email != null) {
                into.put("email", email);
            }
            if (name != null) {
                into.put("name", name);
            }
        } else {
            into.put("type", "token").put("id", tokenId.toString());
            if (tokenLabel != null) {
                into.put("name", tokenLabel);
            }
        }
        return into;
    }

    public ObjectNode addTo(ObjectNode details) {
        if (isPerson()) {
            details.put("requested_by", "person").put("user_id", subject);
            if (email != null) {
                details.put("user_email", email);
            }
            if (name != null) {
                details.put("user_name", name);
            }
        } else {
            details.put("requested_by", "token").put("token_id", tokenId.toString());
            if (tokenLabel != null) {
                details.put("token_label", tokenLabel);
            }
        }
        return details;
    }
}
