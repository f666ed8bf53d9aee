package io.mergesynthesis.service.core;

import java.text.Normalizer;
import java.util.Locale;

/**
 * What text may name something: a policy id, a dedup key, a scope id, a target, an org's name. Two identifiers
 * are the same thing only when they are the same characters, so an identifier must not hold what a reader
 * cannot see or cannot tell apart from something else: otherwise "pol‑1" (with U+2011) and "pol-1" are two
 * rules that read as one, and a merge can remove the one while keeping the other.
 *
 * <p>Refused: control (Cc), format (Cf: zero-width characters, bidirectional overrides), unassigned (Cn),
 * private-use (Co: drawn differently by every font) and surrogate (Cs) code points; line and paragraph
 * separators; a space-like character at either end; any dash but the hyphen-minus, and the minus sign; and any
 * text that Unicode normalization NFKC would change (compatibility forms such as U+2011, full-width letters,
 * ligatures, a letter and its accent sent as two characters). Letters of every script are accepted.
 */
public final class IdentifierText {

    private static final int HYPHEN_MINUS = '-';
    private static final int MINUS_SIGN = 0x2212;

    private IdentifierText() {
    }

    /** Why {@code text} is no identifier, in words that follow the field's name, or null when it is one. */
    public static String problem(String text) {
        String unstorable = Storable.textProblem(text);
        if (unstorable != null) {
            return unstorable;
        }
        if (text.isEmpty()) {
            return "must not be empty";
        }
        for (int i = 0; i < text.length(); ) {
            int c = text.codePointAt(i);
            String refused = refusedCharacter(c);
            if (refused != null) {
                return String.format(Locale.ROOT, "must not contain %s (found %s) at character %d",
                        refused, name(c), i);
            }
            i += Character.charCount(c);
        }
        int first = text.codePointAt(0);
        int last = text.codePointBefore(text.length());
        if (spaceLike(first) || spaceLike(last)) {
            return String.format(Locale.ROOT, "must not begin or end with a space (found %s) at the %s",
                    name(spaceLike(first) ? first : last), spaceLike(first) ? "start" : "end");
        }
        if (!Normalizer.isNormalized(text, Normalizer.Form.NFKC)) {
            return notNormalized(text);
        }
        return null;
    }

    private static String refusedCharacter(int c) {
        return switch (Character.getType(c)) {
            case Character.CONTROL -> "control characters";
            case Character.FORMAT -> "invisible format characters (zero-width or direction marks)";
            case Character.UNASSIGNED -> "unassigned code points";
            case Character.PRIVATE_USE -> "private-use characters";
            case Character.SURROGATE -> "unpaired surrogates";
            case Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR -> "line or paragraph separators";
            case Character.DASH_PUNCTUATION -> c == HYPHEN_MINUS ? null
                    : "dashes other than the hyphen-minus '-', which they read as";
            default -> c == MINUS_SIGN ? "the minus sign, which reads as the hyphen-minus '-'" : null;
        };
    }

    private static boolean spaceLike(int c) {
        return Character.isWhitespace(c) || Character.isSpaceChar(c);
    }

    /** Names the first character that normalization changes on its own, when one does. */
    private static String notNormalized(String text) {
        for (int i = 0; i < text.length(); ) {
            int c = text.codePointAt(i);
            String one = new String(Character.toChars(c));
            String normal = Normalizer.normalize(one, Normalizer.Form.NFKC);
            if (!normal.equals(one)) {
                return String.format(Locale.ROOT, "must be in Unicode normal form NFKC: %s at character %d "
                        + "stands for \"%s\"; send that instead", name(c), i, normal);
            }
            i += Character.charCount(c);
        }
        return "must be in Unicode normal form NFKC (for example a letter and its accent as one character, "
                + "not two); send its NFKC form";
    }

    static String name(int c) {
        return String.format(Locale.ROOT, "U+%04X", c);
    }
}
