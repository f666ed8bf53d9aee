package io.mergesynthesis.service.core;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntPredicate;

/**
 * Random identifiers for tests: well-formed ones in several scripts, and ones that each hold one character of a
 * refused kind, drawn from every code point of that kind the Java runtime knows.
 */
public final class TextSamples {

    /** The refused kinds, by a name a failing test can show, each with every code point of that kind. */
    public static final Map<String, int[]> REFUSED = new LinkedHashMap<>();

    static {
        REFUSED.put("control (Cc)", every(c -> Character.getType(c) == Character.CONTROL));
        REFUSED.put("format (Cf)", every(c -> Character.getType(c) == Character.FORMAT));
        REFUSED.put("unassigned (Cn)", every(c -> Character.getType(c) == Character.UNASSIGNED));
        REFUSED.put("private use (Co)", every(c -> Character.getType(c) == Character.PRIVATE_USE));
        REFUSED.put("surrogate (Cs)", every(c -> Character.getType(c) == Character.SURROGATE));
        REFUSED.put("dash other than '-' (Pd)", every(c -> Character.getType(c) == Character.DASH_PUNCTUATION
                && c != '-'));
        REFUSED.put("changed by NFKC", every(c -> allowedKind(c) && !Normalizer.isNormalized(
                new String(Character.toChars(c)), Normalizer.Form.NFKC)));
    }

    /** Letters of Latin, Cyrillic, Japanese and Greek, digits, and the punctuation ids are made of. */
    private static final String[] WELL_FORMED_PARTS = {
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/@",
        "абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ",
        "あいうえおかきくけこさしすせそたちつてとなにぬねのアイウエオカキクケコサシスセソ方針規則重複鍵ー",
        "αβγδεζηθικλμνξοπρστυφχψωΑΒΓΔ",
    };

    private TextSamples() {
    }

    /** A well-formed identifier of 1 to {@code maxLength} characters (code points), mostly of one script. */
    public static String wellFormed(Random random, int maxLength) {
        int length = 1 + random.nextInt(maxLength);
        StringBuilder out = new StringBuilder();
        String script = WELL_FORMED_PARTS[random.nextInt(WELL_FORMED_PARTS.length)];
        for (int i = 0; i < length; i++) {
            String from = random.nextInt(5) == 0 ? WELL_FORMED_PARTS[0] : script;
            int at = random.nextInt(from.codePointCount(0, from.length()));
            out.appendCodePoint(from.codePointAt(from.offsetByCodePoints(0, at)));
        }
        if (length > 2 && random.nextBoolean()) {
            out.insert(out.offsetByCodePoints(0, 1), ' ');
        }
        return out.toString();
    }

    /** A well-formed identifier with one code point of {@code kind} put somewhere in it. */
    public static String withOne(Random random, int[] kind, int maxLength) {
        String around = wellFormed(random, Math.max(1, maxLength - 1));
        int at = random.nextInt(around.codePointCount(0, around.length()) + 1);
        int offset = around.offsetByCodePoints(0, at);
        int c = kind[random.nextInt(kind.length)];
        return around.substring(0, offset) + new String(Character.toChars(c)) + around.substring(offset);
    }

    /** A well-formed identifier with a space-like character at its start or its end. */
    public static String withEdgeSpace(Random random, int maxLength) {
        int[] spaces = {' ', 0x00A0, 0x2002, 0x3000, 0x202F, '\u2009'};
        String space = new String(Character.toChars(spaces[random.nextInt(spaces.length)]));
        String around = wellFormed(random, Math.max(1, maxLength - 1));
        return random.nextBoolean() ? space + around : around + space;
    }

    private static boolean allowedKind(int c) {
        int type = Character.getType(c);
        return type != Character.CONTROL && type != Character.FORMAT && type != Character.UNASSIGNED
                && type != Character.PRIVATE_USE && type != Character.SURROGATE
                && type != Character.DASH_PUNCTUATION && type != Character.LINE_SEPARATOR
                && type != Character.PARAGRAPH_SEPARATOR && !Character.isSpaceChar(c) && !Character.isWhitespace(c);
    }

    private static int[] every(IntPredicate kind) {
        List<Integer> found = new ArrayList<>();
        for (int c = 0; c <= Character.MAX_CODE_POINT; c++) {
            if (kind.test(c)) {
                found.add(c);
            }
        }
        return found.stream().mapToInt(Integer::intValue).toArray();
    }

    /** {@code text} as a JSON string literal, every character outside printable ASCII escaped as JSON allows. */
    public static String json(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c >= 0x20 && c < 0x7f) {
                out.append(c);
            } else {
                out.append(String.format("\\u%04x", (int) c));
            }
        }
        return out.append('"').toString();
    }
}
