package io.mergesynthesis.service.core;

import java.time.Instant;

/**
 * What PostgreSQL keeps exactly as the API received it. Java holds more than that: a string may carry a NUL,
 * which PostgreSQL text refuses (the request then failed with a 500), or an unpaired UTF-16 surrogate, which
 * has no UTF-8 form and which the driver silently stores as '?' (so two different dedup keys became one); an
 * Instant may lie outside the years timestamptz can hold. Input is checked against this before it is stored,
 * so that such values get a 4xx naming the field instead.
 */
public final class Storable {

    /** The earliest instant the API accepts; nothing it stores happened before. */
    public static final Instant EARLIEST = Instant.EPOCH;
    /** The latest instant the API accepts: the end of year 9999, the last four-digit year. */
    public static final Instant LATEST = Instant.parse("9999-12-31T23:59:59.999999Z");

    private Storable() {
    }

    public static boolean instant(Instant at) {
        return !at.isBefore(EARLIEST) && !at.isAfter(LATEST);
    }

    /** Why {@code text} cannot be stored as it is, or null when it can. */
    public static String textProblem(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\u0000') {
                return "must not contain NUL characters";
            }
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return "must be valid Unicode: it holds an unpaired surrogate (\\u"
                        + Integer.toHexString(c) + ") at character " + i;
            }
        }
        return null;
    }
}
