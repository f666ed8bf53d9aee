package io.mergesynthesis.service.export;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.mergesynthesis.service.db.EventStream.StoredEvent;

/**
 * ArcSight Common Event Format, version 0: {@code CEF:0|vendor|product|version|class|name|severity|extensions}.
 * Standard extension keys where one fits (rt, externalId, act, outcome, cat, msg, reason, suid, suser), the
 * custom string pairs cs1..cs6 with their labels for the conflict's fields, and keys of our own for a merge's.
 * Every header field and extension value goes through the format's escaping, so no value can end a field, add a
 * key or break the line.
 */
final class CefLines implements EventLines {

    static final String VENDOR = "merge-synthesis";
    static final String PRODUCT = "merge-synthesis";

    /** The keys of a merge's fields, ours because the custom strings are taken (see {@link #mergedRule}). */
    static final String MERGED_EFFECT = "mergeSynthesisMergedEffect";
    static final String MERGED_TARGET = "mergeSynthesisMergedTarget";
    static final String MERGED_SCOPE = "mergeSynthesisMergedScope";
    static final String MERGED_SCOPE_ID = "mergeSynthesisMergedScopeId";
    static final String CHECK_RESULT = "mergeSynthesisCheckResult";
    static final String CHECK_VERSION = "mergeSynthesisCheckVersion";
    /** An accepted merge's losing rules and what becomes of each, as a JSON array (see {@link #loserActions}). */
    static final String LOSER_ACTIONS = "mergeSynthesisLoserActions";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String version;

    CefLines() {
        String implementation = CefLines.class.getPackage().getImplementationVersion();
        this.version = implementation == null ? "dev" : implementation;
    }

    @Override
    public String line(StoredEvent e) {
        EventVocabulary words = EventVocabulary.of(e.eventType());
        JsonNode details = read(e.detailsJson());
        StringBuilder line = new StringBuilder(256)
                .append("CEF:0|").append(header(VENDOR))
                .append('|').append(header(PRODUCT))
                .append('|').append(header(version))
                .append('|').append(header(e.eventType()))
                .append('|').append(header(words.title()))
                .append('|').append(words.severity())
                .append('|');
        Extensions ext = new Extensions(line);
        ext.add("rt", Long.toString(e.occurredAt().toEpochMilli()));
        ext.add("externalId", Long.toString(e.id()));
        ext.add("cat", e.conflictId() == null ? "platform" : "policy-conflict");
        ext.add("act", words.action());
        ext.add("outcome", words.outcome());
        ext.custom(1, "orgId", e.orgId() == null ? null : e.orgId().toString());
        ext.custom(2, "conflictId", e.conflictId() == null ? null : e.conflictId().toString());
        ext.custom(3, "dedupKey", e.dedupKey());
        ext.custom(4, "target", e.target());
        ext.custom(5, "conflictAction", e.action());
        ext.custom(6, "resolution", text(details, "resolution"));
        ext.add("msg", firstText(details, "resolution_note", "name"));
        ext.add("reason", firstText(details, "reason", "previous_failure_reason"));
        // Who acted: a person by subject and name (or email), a token by id and label, or the command line.
        ext.add("suid", firstText(details, "user_id", "token_id"));
        // The token a token_minted or token_revoked event is about.
        ext.add("duid", text(details, "subject_token_id"));
        ext.add("suser", "cli".equals(text(details, "requested_by")) ? "cli"
                : firstText(details, "user_name", text(details, "user_email") != null ? "user_email" : "token_label"));
        mergedRule(ext, details);
        return line.toString();
    }

    /**
     * What a stored merge makes of the rules, and the check it passed; for an accepted suggestion, the merge the
     * policy engine is to apply, with its losing rules' actions. The six custom strings are taken by the
     * conflict's own fields, so these are keys of our own, named for the product as CEF asks of vendor keys; a
     * collector that keeps only the standard keys needs a mapping for them (ADR 0010).
     */
    private static void mergedRule(Extensions ext, JsonNode details) {
        JsonNode rule = details.path("merged_rule");
        JsonNode check = details.path("check");
        ext.add(MERGED_EFFECT, text(rule, "effect"));
        ext.add(MERGED_TARGET, text(rule, "target"));
        ext.add(MERGED_SCOPE, text(rule, "scope"));
        ext.add(MERGED_SCOPE_ID, text(rule, "scope_id"));
        ext.add(CHECK_RESULT, text(check, "result"));
        ext.add(CHECK_VERSION, text(check, "version"));
        ext.add(LOSER_ACTIONS, loserActions(details.path("loser_actions")));
    }

    /**
     * {@code [{"policy_id":"pol-a","action":"remove"},...]}: enough for a rule on the collector to see which rules
     * an accepted merge changes. JSON because a policy id may hold any character, the separators of a
     * hand-made list included; each action's free-text detail stays in the NDJSON format.
     */
    private static String loserActions(JsonNode actions) {
        if (!actions.isArray() || actions.isEmpty()) {
            return null;
        }
        ArrayNode pairs = OneLineJson.MAPPER.createArrayNode();
        for (JsonNode action : actions) {
            pairs.addObject().put("policy_id", text(action, "policy_id")).put("action", text(action, "action"));
        }
        try {
            return OneLineJson.MAPPER.writeValueAsString(pairs);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise an accepted merge's loser actions", e);
        }
    }

    /** CEF has no place for a cursor inside the stream; it travels in the header (and on standard error). */
    @Override
    public String trailer(String nextCursor) {
        return null;
    }

    /**
     * Header fields: backslash and pipe are escaped. A line terminator (any of Unicode's, not only CR and LF)
     * would end the record and the format has no escape for it here, so it becomes a space.
     */
    static String header(String value) {
        StringBuilder out = new StringBuilder(value.length());
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '|' -> out.append("\\|");
                default -> out.append(OneLineJson.breaksLines(c) ? ' ' : c);
            }
        }
        return out.toString();
    }

    /**
     * Extension values: backslash and equals are escaped, CR and LF written as the format's \r and \n. The format
     * names no escape for Unicode's other line terminators (U+0085, U+2028, U+2029) or the other control
     * characters, yet some readers break lines on them; they are written as backslash-u and four hex digits,
     * which no other value can produce because every backslash of the value is itself escaped.
     */
    static String extensionValue(String value) {
        StringBuilder out = new StringBuilder(value.length());
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '=' -> out.append("\\=");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                default -> {
                    if (OneLineJson.breaksLines(c)) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }

    private static String firstText(JsonNode details, String field, String otherwise) {
        String value = text(details, field);
        return value != null ? value : text(details, otherwise);
    }

    private static String text(JsonNode details, String field) {
        JsonNode value = details.get(field);
        return value == null || value.isNull() ? null : value.asText();
    }

    private static JsonNode read(String json) {
        try {
            return json == null ? JSON.createObjectNode() : JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored event details are not JSON", e);
        }
    }

    /** Space-separated key=value pairs; absent values are left out rather than sent empty. */
    private static final class Extensions {
        private final StringBuilder line;
        private boolean first = true;

        Extensions(StringBuilder line) {
            this.line = line;
        }

        void add(String key, String value) {
            if (value == null) {
                return;
            }
            if (!first) {
                line.append(' ');
            }
            first = false;
            line.append(key).append('=').append(extensionValue(value));
        }

        /** A custom string csN with its label csNLabel, both left out when there is no value. */
        void custom(int n, String label, String value) {
            if (value != null) {
                add("cs" + n + "Label", label);
                add("cs" + n, value);
            }
        }
    }
}
