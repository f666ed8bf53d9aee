package io.mergesynthesis.llm;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Takes anything shaped like a secret out of a provider's own text before it goes into a log line. Providers quote
 * keys back in their errors, whole or cut down to a head and a tail ({@code sk-ant-...6789},
 * {@code sk-proj-****1234}); replacing the configured key where it appears whole misses every such form, and the
 * head and tail together are most of what identifies a key. So this removes, besides the configured key itself:
 * any word that starts with its head; words of the known key forms ({@code sk-...}, this service's own
 * {@code msk_...} tokens, a bearer credential); and any word elided in the middle with dots or stars, whatever
 * it starts with.
 */
final class KeyShapes {

    static final String REMOVED = "[key removed]";

    /** How many leading characters of the configured key identify a quote of it. */
    private static final int HEAD = 8;

    private static final String WORD = "[A-Za-z0-9_\\-]";

    private static final Pattern SHAPES = Pattern.compile(String.join("|",
            // Anthropic's and OpenAI's key forms, whole or elided.
            "(?<![A-Za-z0-9_\\-])sk-[A-Za-z0-9_\\-.*…]*",
            // This service's own bearer tokens.
            "(?<![A-Za-z0-9_\\-])msk_[A-Za-z0-9_\\-.*…]*",
            // A credential as a header quotes it.
            "(?i:bearer)\\s+[A-Za-z0-9_\\-.~+/=*…]+",
            // A word cut in the middle, the way keys are shown shortened: "abc123...6789", "AKIA****WXYZ".
            WORD + "{3,}(?:\\.{3}|…|\\*{3,})" + WORD + "{2,}"));

    private KeyShapes() {
    }

    /**
     * {@code text} with every key-shaped word replaced by {@link #REMOVED}.
     *
     * @param configuredKey the key the provider was called with, or null
     */
    static String removeFrom(String text, String configuredKey) {
        if (text == null || text.isEmpty()) {
            return text;
        }
        String cleaned = text;
        if (configuredKey != null && !configuredKey.isBlank()) {
            cleaned = cleaned.replace(configuredKey, REMOVED);
            if (configuredKey.length() > HEAD) {
                cleaned = Pattern.compile(Pattern.quote(configuredKey.substring(0, HEAD)) + "\\S*")
                        .matcher(cleaned).replaceAll(Matcher.quoteReplacement(REMOVED));
            }
        }
        return SHAPES.matcher(cleaned).replaceAll(Matcher.quoteReplacement(REMOVED));
    }
}
