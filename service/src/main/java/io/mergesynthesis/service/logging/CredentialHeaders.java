package io.mergesynthesis.service.logging;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The headers whose whole value is a credential, and where that value sits in the shapes HTTP libraries print
 * headers in: {@code Name: value} (one per line, or inside {@code HttpField[...]}), {@code name=value} and
 * {@code name=[value]} (header maps), {@code "name":"value"} and {@code "name":["value"]} (JSON), and Jetty's
 * parser, which prints the name and the value apart ({@code headerString=[Name], valueString=[value]}). Names
 * match in any case. Only the scheme of an authorization header is kept, to tell Basic from Bearer; a cookie
 * header loses every pair.
 */
final class CredentialHeaders {

    static final Set<String> NAMES = Set.of("authorization", "proxy-authorization", "x-api-key", "api-key",
            "x-goog-api-key", "x-auth-token", "cookie", "set-cookie");

    /**
     * A credential header's name and what stands between it and its value. A name is whole: "cookie" in
     * "set-cookie" is the latter's. The second separator is for the name and the value printed as two fields.
     */
    private static final Pattern NAME_THEN_VALUE = Pattern.compile("(?i)(?<![\\w-])("
            + "proxy-authorization|authorization|x-api-key|api-key|x-goog-api-key|x-auth-token|set-cookie|cookie)"
            + "([\"'\\]]?\\s*,\\s*[\"']?value(?:string)?[\"']?\\s*[:=]\\s*|[\"']?[ \\t]*[:=][ \\t]*)");

    private static final Pattern SCHEME = Pattern.compile("([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~\\-]*)[ \\t]+\\S");

    private CredentialHeaders() {
    }

    /** Whether a header of this name carries a credential as its whole value. */
    static boolean isCredential(String name) {
        return name != null && NAMES.contains(name.toLowerCase(Locale.ROOT));
    }

    /** A credential header's value as it may be logged: the authorization scheme, if any, and {@code mark}. */
    static String redactedValue(String name, String value, String mark) {
        if (value == null || value.isEmpty()) {
            return value;
        }
        if (name.toLowerCase(Locale.ROOT).endsWith("authorization")) {
            Matcher scheme = SCHEME.matcher(value);
            if (scheme.lookingAt()) {
                return scheme.group(1) + " " + mark;
            }
        }
        return mark;
    }

    /** The text with the value of every credential header in it replaced. */
    static String redact(String text, String mark) {
        Matcher m = NAME_THEN_VALUE.matcher(text);
        if (!m.find()) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        int copied = 0;
        do {
            int start = m.end();
            int end = valueEnd(text, start);
            if (start < copied) {
                // A value inside one already removed (a bare value can run over the next header's name, as in
                // Jetty's "parsedHeader(Name: value) ... valueString=[value]"): the removed part grows to cover it.
                if (end > copied) {
                    copied = end;
                }
            } else if (end > start) {
                String value = text.substring(start, end);
                String opener = value.startsWith("[\"") ? "[\"" : value.startsWith("[") ? "["
                        : value.startsWith("\"") ? "\"" : value.startsWith("'") ? "'" : "";
                String closer = closer(opener, value);
                String inner = value.substring(opener.length(), value.length() - closer.length());
                out.append(text, copied, start).append(opener)
                        .append(redactedValue(m.group(1), inner.strip(), mark)).append(closer);
                copied = end;
            }
        } while (m.find());
        out.append(text, copied, text.length());
        return out.toString();
    }

    /**
     * Where a value that starts at {@code start} ends. A bracketed or quoted value ends at its closing bracket or
     * quote; a bare one at the end of the line or of the structure around it ({@code ]}, {@code }}), never at a
     * comma or a semicolon, which Digest credentials and cookies hold. In a map printed as
     * {@code {authorization=Basic x, host=y}} the following fields go too: a lost host beats a kept password.
     */
    private static int valueEnd(String text, int start) {
        if (start >= text.length()) {
            return start;
        }
        char first = text.charAt(start);
        if (first == '[') {
            return closedAt(text, start + 1, ']');
        }
        if (first == '"' || first == '\'') {
            return closedAt(text, start + 1, first);
        }
        int i = start;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '\n' || c == '\r' || c == ']' || c == '}') {
                break;
            }
            // A line break written out as an escape, as in a dumped buffer.
            if (c == '\\' && i + 1 < text.length() && (text.charAt(i + 1) == 'r' || text.charAt(i + 1) == 'n')) {
                break;
            }
            i++;
        }
        return i;
    }

    /** Just past {@code close} on the same line, or the end of the line when it is missing. */
    private static int closedAt(String text, int from, char close) {
        for (int i = from; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\' && close != ']') {
                i++;
            } else if (c == close) {
                return i + 1;
            } else if (c == '\n' || c == '\r') {
                return i;
            }
        }
        return text.length();
    }

    private static String closer(String opener, String value) {
        String expected = switch (opener) {
            case "[\"" -> "\"]";
            case "[" -> "]";
            case "\"" -> "\"";
            case "'" -> "'";
            default -> "";
        };
        if (value.length() >= opener.length() + expected.length() && value.endsWith(expected)) {
            return expected;
        }
        return expected.endsWith("]") && value.endsWith("]") ? "]" : "";
    }
}
