package io.mergesynthesis.service.export;

import java.util.Map;

/**
 * What each stored event type is called outside: its ECS action, type and outcome, its CEF name and
 * severity. Both formats read from here, so they always agree with each other.
 */
public record EventVocabulary(String action, String ecsType, String outcome, int severity, String title) {

    private static final Map<String, EventVocabulary> KNOWN = Map.ofEntries(
            Map.entry("conflict_detected", new EventVocabulary("conflict-detected", "creation", "success", 3,
                    "Policy conflict detected")),
            Map.entry("merge_synthesized", new EventVocabulary("merge-synthesized", "change", "success", 2,
                    "Suggested merge synthesized")),
            Map.entry("synthesis_failed_permanently", new EventVocabulary("synthesis-failed-permanently", "change",
                    "failure", 6, "Synthesis failed permanently")),
            Map.entry("conflict_acknowledged", new EventVocabulary("conflict-acknowledged", "change", "success", 1,
                    "Policy conflict acknowledged")),
            Map.entry("conflict_resolved", new EventVocabulary("conflict-resolved", "change", "success", 2,
                    "Policy conflict resolved")),
            // Someone overrode the pool's decision to give up: worth a look, less than the failure itself.
            Map.entry("synthesis_requeued", new EventVocabulary("synthesis-requeued", "change", "success", 4,
                    "Synthesis re-queued")),
            // The platform's own changes: a name only labels an org; a credential made or withdrawn is worth more.
            Map.entry("org_named", new EventVocabulary("org-named", "change", "success", 2, "Org named")),
            Map.entry("token_minted", new EventVocabulary("token-minted", "creation", "success", 5,
                    "API token minted")),
            Map.entry("token_revoked", new EventVocabulary("token-revoked", "deletion", "success", 4,
                    "API token revoked")),
            // A model or a budget changes what the org spends and which model sees its policies.
            Map.entry("org_settings_changed", new EventVocabulary("org-settings-changed", "change", "success", 3,
                    "Org synthesis settings changed")),
            // Work the org was waiting for stopped by the platform: as much as a change of its settings.
            Map.entry("batch_cancel_requested", new EventVocabulary("batch-cancel-requested", "change", "success",
                    3, "Provider batch cancel requested")));

    /** An event type this build does not know (a newer replica wrote it) still exports, at a middle severity. */
    public static EventVocabulary of(String eventType) {
        EventVocabulary known = KNOWN.get(eventType);
        if (known != null) {
            return known;
        }
        return new EventVocabulary(eventType.replace('_', '-'), "info", "unknown", 5, eventType.replace('_', ' '));
    }
}
