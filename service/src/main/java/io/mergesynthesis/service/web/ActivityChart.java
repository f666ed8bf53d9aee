package io.mergesynthesis.service.web;

import java.util.List;
import java.util.Locale;

/**
 * One series over time drawn as an SVG line on the server: a polyline through the buckets, scaled so that the
 * largest value touches the top. Only numbers reach the markup, so nothing in it comes from a request.
 *
 * @param id      the element id its title and the screen reader's label hang on
 * @param title   what it counts, in words
 * @param points  the polyline's points, {@code x,y} pairs
 * @param area    the same line closed along the bottom, filled
 * @param peak    the largest value, as the caption shows it
 * @param first   the first bucket's label, under the left end
 * @param last    the last bucket's label, under the right end
 */
record ActivityChart(String id, String title, String points, String area, String peak, String first, String last) {

    static final int WIDTH = 560;
    static final int HEIGHT = 90;
    /** Room above the peak, so that its line is not cut by the edge. */
    static final int TOP = 4;

    /**
     * @param values one per bucket, oldest first; at least one
     * @param peak   the largest value as words (a count, an amount)
     */
    static ActivityChart of(String id, String title, List<Double> values, String peak, String first, String last) {
        double max = values.stream().mapToDouble(Double::doubleValue).max().orElse(0);
        StringBuilder points = new StringBuilder(values.size() * 12);
        int n = values.size();
        for (int i = 0; i < n; i++) {
            double x = n == 1 ? WIDTH / 2.0 : i * (double) WIDTH / (n - 1);
            double y = HEIGHT - (max <= 0 ? 0 : values.get(i) / max * (HEIGHT - TOP));
            if (i > 0) {
                points.append(' ');
            }
            points.append(String.format(Locale.ROOT, "%.1f,%.1f", x, y));
        }
        String line = points.toString();
        String area = String.format(Locale.ROOT, "0,%d %s %d,%d", HEIGHT, line, WIDTH, HEIGHT);
        return new ActivityChart(id, title, line, area, peak, first, last);
    }
}
