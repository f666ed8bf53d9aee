package io.mergesynthesis.drills;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import io.mergesynthesis.harness.Replica;

/**
 * A stretch of a replica's log (see {@link Replica#logMark()}), counted the way an operator paging through it
 * would feel it: warnings and errors, and the lines of stack traces. Dropwizard writes a level first on each
 * log line ({@code WARN  [2026-...] logger: message}) and prefixes every line of a stack trace with {@code !}.
 */
record LogExcerpt(String replica, String text) {

    private static final Pattern WARN_OR_ERROR = Pattern.compile("^(WARN|ERROR) ");
    private static final Pattern STACK_TRACE = Pattern.compile("^(! |\\tat |Caused by: )");

    List<String> lines() {
        return text.lines().toList();
    }

    List<String> warningsAndErrors() {
        return lines().stream().filter(line -> WARN_OR_ERROR.matcher(line).find()).toList();
    }

    long stackTraceLines() {
        return lines().stream().filter(line -> STACK_TRACE.matcher(line).find()).count();
    }

    /** Lines (of any level) that contain {@code fragment}. */
    long count(String fragment) {
        return lines().stream().filter(line -> line.contains(fragment)).count();
    }

    /**
     * For a report: the counts, then the first {@code messages} distinct warning and error lines (without their
     * timestamps) with how often each came.
     */
    String summary(int messages) {
        StringBuilder out = new StringBuilder();
        out.append(replica).append(": ").append(lines().size()).append(" lines, ")
                .append(warningsAndErrors().size()).append(" WARN/ERROR, ").append(stackTraceLines())
                .append(" stack trace lines");
        Map<String, Long> distinct = warningsAndErrors().stream()
                .map(LogExcerpt::withoutTimestamp)
                .collect(Collectors.groupingBy(m -> m, LinkedHashMap::new, Collectors.counting()));
        distinct.entrySet().stream().limit(messages).forEach(entry ->
                out.append("\n    ").append(entry.getValue()).append(" x ").append(entry.getKey()));
        if (distinct.size() > messages) {
            out.append("\n    ... and ").append(distinct.size() - messages).append(" more distinct messages");
        }
        return out.toString();
    }

    /** {@code WARN  [2026-11-21 07:16:02,685] logger: message} without the timestamp, cut to 200 characters. */
    private static String withoutTimestamp(String line) {
        String message = line.replaceFirst("^(\\w+)\\s+\\[[^]]*]\\s*", "$1 ");
        return message.length() > 200 ? message.substring(0, 200) + "..." : message;
    }
}
