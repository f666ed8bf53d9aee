package io.mergesynthesis.service.web;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** A time as a page shows it: relative text for reading, the exact time for a tooltip and for machines. */
public record Moment(String iso, String exact, String relative) {

    private static final DateTimeFormatter EXACT = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'")
            .withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("d MMM yyyy").withZone(ZoneOffset.UTC);

    /** Null for a time that is not there, which templates show as nothing. */
    public static Moment of(Instant at, Instant now) {
        if (at == null) {
            return null;
        }
        return new Moment(DateTimeFormatter.ISO_INSTANT.format(at), EXACT.format(at), relative(at, now));
    }

    static String relative(Instant at, Instant now) {
        Duration d = Duration.between(at, now);
        boolean future = d.isNegative();
        long s = d.abs().getSeconds();
        String amount;
        if (s < 45) {
            return future ? "in a few seconds" : "just now";
        } else if (s < 3600) {
            amount = Math.max(1, Math.round(s / 60.0)) + " min";
        } else if (s < 86_400) {
            amount = (s / 3600) + " h";
        } else if (s < 30 * 86_400L) {
            long days = s / 86_400;
            amount = days + (days == 1 ? " day" : " days");
        } else {
            return DAY.format(at);
        }
        return future ? "in " + amount : amount + " ago";
    }
}
