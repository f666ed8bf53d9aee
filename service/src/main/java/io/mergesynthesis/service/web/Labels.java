package io.mergesynthesis.service.web;

import java.util.Map;
import java.util.UUID;

/** Words a person reads for the product's codes; the codes themselves stay visible where they matter. */
final class Labels {

    private static final Map<String, String> STATES = Map.of(
            "pending", "pending",
            "in_progress", "in progress",
            "done", "merge ready",
            "waiting_budget", "waiting for budget",
            "max_attempts_exceeded", "failed");

    private static final Map<String, String> RESOLUTIONS = Map.of(
            "accepted_suggestion", "accepted the suggestion",
            "rejected_suggestion", "rejected the suggestion",
            "manual", "fixed by hand");

    private Labels() {
    }

    static String state(String code) {
        return STATES.getOrDefault(code, code);
    }

    static String resolution(String code) {
        return code == null ? null : RESOLUTIONS.getOrDefault(code, code);
    }

    /** A UUID in its canonical form only; anything else is null (and so "not found"). */
    static UUID uuid(String text) {
        if (text == null || text.length() != 36) {
            return null;
        }
        try {
            UUID id = UUID.fromString(text);
            return id.toString().equalsIgnoreCase(text) ? id : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
