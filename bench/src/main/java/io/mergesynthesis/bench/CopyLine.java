package io.mergesynthesis.bench;

import java.time.LocalDate;

/**
 * Rows in PostgreSQL's COPY text format, appended to one buffer: fields separated by tabs, {@code \N} for NULL,
 * backslash, tab and line breaks escaped, a newline after each row. Timestamps are written by hand, in UTC to the
 * millisecond, since the loader writes several for each of millions of rows and a formatter would cost more than
 * the rest of the row.
 */
final class CopyLine {

    private final StringBuilder out;
    private boolean first = true;
    private long cachedDay = Long.MIN_VALUE;
    private String cachedDate;

    CopyLine(StringBuilder out) {
        this.out = out;
    }

    CopyLine text(String value) {
        if (value == null) {
            return nul();
        }
        separate();
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                default -> out.append(c);
            }
        }
        return this;
    }

    CopyLine number(long value) {
        separate();
        out.append(value);
        return this;
    }

    /** A decimal written as given ({@code "0.001234"}): costs are kept exact. */
    CopyLine decimal(String value) {
        separate();
        out.append(value);
        return this;
    }

    CopyLine uuid(java.util.UUID value) {
        return value == null ? nul() : text(value.toString());
    }

    /** A timestamptz of {@code epochMillis}, or NULL when it is {@link Long#MIN_VALUE}. */
    CopyLine time(long epochMillis) {
        if (epochMillis == Long.MIN_VALUE) {
            return nul();
        }
        separate();
        long day = Math.floorDiv(epochMillis, 86_400_000L);
        if (day != cachedDay) {
            cachedDay = day;
            cachedDate = LocalDate.ofEpochDay(day).toString();
        }
        long ms = Math.floorMod(epochMillis, 86_400_000L);
        out.append(cachedDate).append(' ');
        two(ms / 3_600_000).append(':');
        two(ms / 60_000 % 60).append(':');
        two(ms / 1_000 % 60).append('.');
        long milli = ms % 1_000;
        out.append((char) ('0' + milli / 100)).append((char) ('0' + milli / 10 % 10)).append((char) ('0' + milli % 10));
        out.append("+00");
        return this;
    }

    CopyLine nul() {
        separate();
        out.append("\\N");
        return this;
    }

    /** Ends the row. */
    void end() {
        out.append('\n');
        first = true;
    }

    private StringBuilder two(long value) {
        return out.append((char) ('0' + value / 10)).append((char) ('0' + value % 10));
    }

    private void separate() {
        if (!first) {
            out.append('\t');
        }
        first = false;
    }
}
