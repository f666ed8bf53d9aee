package io.mergesynthesis.standin;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a duration given to the stand-in (a flag, or an outage's {@code for}) in the form the service's
 * configuration uses ({@code 500ms}, {@code 10s}, {@code 1m}, {@code 2h}) or in ISO-8601 ({@code PT10S}). The
 * stand-in has no Dropwizard and none of the client's classes, so it reads the few forms it takes itself.
 */
final class DurationFlag {

    private static final Pattern SHORT = Pattern.compile("(\\d+)\\s*(ms|s|m|h)");

    private DurationFlag() {
    }

    /** @throws IllegalArgumentException when the text is neither form */
    static Duration parse(String text) {
        String t = text.trim();
        Matcher m = SHORT.matcher(t);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            };
        }
        try {
            return Duration.parse(t);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("not a duration: '" + t + "' (write e.g. 500ms, 10s, 1m)");
        }
    }
}
