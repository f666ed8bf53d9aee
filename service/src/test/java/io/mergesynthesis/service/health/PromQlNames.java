package io.mergesynthesis.service.health;

import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metric names in a PromQL query, and the series names a Prometheus text exposition offers. Enough PromQL
 * for dashboards and alert rules: label matchers, grouping clauses, ranges and strings are removed, and what
 * remains that is an identifier but not a function or a keyword is a metric name.
 */
final class PromQlNames {

    private static final Set<String> KEYWORDS = Set.of("by", "without", "on", "ignoring", "group_left",
            "group_right", "and", "or", "unless", "bool", "offset", "inf", "nan");
    private static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");

    private PromQlNames() {
    }

    static Set<String> metricsIn(String query) {
        String bare = query
                .replaceAll("\"(\\\\.|[^\"\\\\])*\"", "\"\"")
                .replaceAll("\\{[^}]*}", " ")
                .replaceAll("\\[[^]]*]", " ")
                .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ")
                .replaceAll("\\$[a-zA-Z_]+", " ");
        // label_values(metric, label): the second argument is a label.
        bare = bare.replaceAll("label_values\\(\\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*,\\s*[a-zA-Z_]+\\s*\\)", " $1 ");
        Set<String> names = new TreeSet<>();
        Matcher m = IDENTIFIER.matcher(bare);
        while (m.find()) {
            String word = m.group();
            boolean function = bare.substring(m.end()).stripLeading().startsWith("(");
            boolean partOfNumber = m.start() > 0 && Character.isDigit(bare.charAt(m.start() - 1));
            if (!function && !partOfNumber && !KEYWORDS.contains(word.toLowerCase())) {
                names.add(word);
            }
        }
        return names;
    }

    /**
     * Every series name a scrape of {@code exposition} can hold: the samples present, and for each declared
     * family those its type implies even before a first observation (a counter's _total, a histogram's
     * _bucket, _sum and _count).
     */
    static Set<String> exported(String exposition) {
        Set<String> names = new TreeSet<>();
        for (String line : exposition.split("\n")) {
            if (line.startsWith("# TYPE ")) {
                String[] parts = line.split(" ");
                String family = parts[2];
                String type = parts[3];
                names.add(family);
                switch (type) {
                    case "counter" -> names.add(family.endsWith("_total") ? family : family + "_total");
                    case "histogram" -> names.addAll(Set.of(family + "_bucket", family + "_sum", family + "_count"));
                    case "summary" -> names.addAll(Set.of(family + "_sum", family + "_count"));
                    default -> { }
                }
            } else if (!line.isBlank() && !line.startsWith("#")) {
                names.add(line.split("[{ ]", 2)[0]);
            }
        }
        return names;
    }
}
