package io.mergesynthesis.llm;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import java.io.IOException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a duration the way the rest of the configuration writes them ({@code 500ms}, {@code 10s}, {@code 1m}),
 * and ISO-8601 ({@code PT10S}) as well. The module has no Dropwizard, so it cannot use Dropwizard's own type.
 */
public final class DurationText extends StdDeserializer<Duration> {

    private static final Pattern SHORT = Pattern.compile("(\\d+)\\s*(ms|s|m|h)");

    public DurationText() {
        super(Duration.class);
    }

    /** @throws IllegalArgumentException when the text is neither form */
    public static Duration parse(String text) {
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

    @Override
    public Duration deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
        if (p.currentToken() == JsonToken.VALUE_NUMBER_INT) {
            return Duration.ofSeconds(p.getLongValue());
        }
        try {
            return parse(p.getValueAsString(""));
        } catch (IllegalArgumentException e) {
            return (Duration) ctxt.handleWeirdStringValue(Duration.class, p.getValueAsString(), e.getMessage());
        }
    }
}
