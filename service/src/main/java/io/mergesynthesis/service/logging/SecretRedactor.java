package io.mergesynthesis.service.logging;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Removes credentials from text bound for a log: bearer tokens ({@code msk_...}), provider keys
 * ({@code sk-ant-...}, {@code sk-...}, and the keys this server is configured with, whatever their shape), the
 * whole value of credential headers ({@link CredentialHeaders}), the user and password of any URL, and the value
 * of query parameters named like secrets. It works on any text, so it holds for libraries' debug output as much
 * as for our own messages.
 */
public final class SecretRedactor {

    /** What stands in for a removed secret. */
    public static final String MARK = "[redacted]";

    /** Configured keys shorter than this are placeholders such as "local", not secrets worth hiding. */
    static final int SHORTEST_LITERAL = 12;

    private static final String VALUE = "[^\\s,;\"'\\\\\\]}&]+";

    /**
     * The user and password of a URL ({@code https://user:password@collector:4318}): a URL's userinfo holds no
     * slash, question mark, hash, at sign or space.
     */
    private static final Pattern URL_USERINFO = Pattern.compile(
            "(?i)\\b([a-z][a-z0-9+.\\-]*://)([^/?#@\\s\\[\\]]+)@");
    private static final Pattern SESSION_COOKIE = Pattern.compile(
            "\\b(msw_session|msw_sign_in|msw_oidc)=(" + VALUE + ")");
    private static final Pattern SECRET_PARAMETER = Pattern.compile(
            "(?i)([?&;]\\s*(?:[a-z0-9_.\\-]*(?:token|secret|password|passwd|api[_\\-]?key|signature|credential)"
                    + "[a-z0-9_.\\-]*|key|pwd|auth|session|session_state|sig|code|code_verifier|state|nonce)=)([^&\\s\"'#\\\\]+)");
    /** Our tokens and the providers' keys by their look; a short tail after "sk-" is an ordinary word. */
    private static final Pattern SHAPES = Pattern.compile(
            "\\b(msk_|sk-ant-)[A-Za-z0-9_\\-]+|\\b(sk-)[A-Za-z0-9_\\-]{8,}");

    /**
     * Jetty's debug view of a byte buffer: a few bytes before the content, the content between {@code <<<} and
     * {@code >>>} (its first and last 24 bytes), and a few stale bytes after it. A cut can leave a token's tail
     * without the prefix that would make it recognisable, so the bytes go whole; the buffer's sizes stay.
     */
    private static final Pattern WIRE_DUMP = Pattern.compile("\\{[^{}<>\\n]{0,80}?<<<.*?>>>[^{}<>\\n]{0,80}?}");
    private static final Pattern WIRE_CONTENT = Pattern.compile("<<<.*?>>>");

    private static final SecretRedactor SHAPES_ONLY = new SecretRedactor(List.of());

    private final List<String> literals;

    private SecretRedactor(List<String> literals) {
        this.literals = literals;
    }

    /** Redacts the shapes and names above only. */
    public static SecretRedactor shapes() {
        return SHAPES_ONLY;
    }

    /** Also redacts each of these exact values (configured provider keys) wherever it appears. */
    public static SecretRedactor withSecrets(Collection<String> secrets) {
        List<String> kept = secrets.stream()
                .filter(secret -> secret != null && secret.strip().length() >= SHORTEST_LITERAL)
                .map(String::strip)
                .distinct()
                // The longest first, so that a key containing another is removed whole.
                .sorted(Comparator.comparingInt(String::length).reversed())
                .toList();
        return kept.isEmpty() ? SHAPES_ONLY : new SecretRedactor(kept);
    }

    /** The text with every secret it recognises replaced by {@value #MARK}; null stays null. */
    public String redact(String text) {
        if (text == null || text.isEmpty()) {
            return text;
        }
        String out = text;
        for (String literal : literals) {
            if (out.contains(literal)) {
                out = out.replace(literal, MARK);
            }
        }
        if (out.contains("<<<")) {
            out = replace(WIRE_DUMP, out, m -> "{<<<" + MARK + ">>>}");
            out = replace(WIRE_CONTENT, out, m -> "<<<" + MARK + ">>>");
        }
        out = CredentialHeaders.redact(out, MARK);
        out = replace(URL_USERINFO, out, m -> m.group(1) + MARK + "@");
        out = replace(SESSION_COOKIE, out, m -> m.group(1) + "=" + MARK);
        out = replace(SECRET_PARAMETER, out, m -> m.group(1) + MARK);
        out = replace(SHAPES, out, m -> (m.group(1) != null ? m.group(1) : m.group(2)) + MARK);
        return out;
    }

    /** Whether a query parameter of this name carries a credential by its name alone. */
    public static boolean secretName(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        return SECRET_PARAMETER.matcher("?" + lower + "=x").matches();
    }

    private static String replace(Pattern pattern, String text, java.util.function.Function<Matcher, String> with) {
        Matcher m = pattern.matcher(text);
        if (!m.find()) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        do {
            m.appendReplacement(out, Matcher.quoteReplacement(with.apply(m)));
        } while (m.find());
        m.appendTail(out);
        return out.toString();
    }
}
