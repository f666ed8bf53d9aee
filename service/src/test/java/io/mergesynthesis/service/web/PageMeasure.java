package io.mergesynthesis.service.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * What a page costs a browser, measured in Chromium: the bytes of HTML, CSS and JS of a cold load, and the time to
 * first render over several loads (median, min, max). For the measurements, not for tests: it asserts nothing.
 */
final class PageMeasure {

    static final int LOADS = 21;

    private PageMeasure() {
    }

    record Weight(long html, long css, long js, long transferred, long otherRequests) {
        long total() {
            return html + css + js;
        }
    }

    record Timing(List<Double> domContentLoaded, List<Double> firstPaint) {
    }

    /** A cold load of {@code url}: nothing cached, so every byte is counted once. */
    static Weight weight(ChromeDriver driver, String url) {
        driver.executeCdpCommand("Network.enable", Map.of());
        driver.executeCdpCommand("Network.clearBrowserCache", Map.of());
        driver.executeCdpCommand("Network.setCacheDisabled", Map.of("cacheDisabled", true));
        driver.get(url);
        @SuppressWarnings("unchecked")
        Map<String, Object> weight = (Map<String, Object>) driver.executeScript("""
                const nav = performance.getEntriesByType('navigation')[0];
                const res = performance.getEntriesByType('resource');
                const sum = (kind, f) => res.filter(r => r.initiatorType === kind).reduce((a, r) => a + r[f], 0);
                return {html: nav.decodedBodySize, htmlTransfer: nav.transferSize,
                        css: sum('link', 'decodedBodySize'), js: sum('script', 'decodedBodySize'),
                        other: res.filter(r => r.initiatorType !== 'link' && r.initiatorType !== 'script').length,
                        transfer: nav.transferSize + res.reduce((a, r) => a + r.transferSize, 0)};""");
        return new Weight(number(weight, "html"), number(weight, "css"), number(weight, "js"),
                number(weight, "transfer"), number(weight, "other"));
    }

    /** {@link #LOADS} loads of {@code url}, each timed to domContentLoaded and to its first contentful paint. */
    static Timing timing(ChromeDriver driver, String url) {
        List<Double> domContentLoaded = new ArrayList<>();
        List<Double> firstPaint = new ArrayList<>();
        for (int i = 0; i < LOADS; i++) {
            driver.get(url);
            // The paint entry may be recorded a moment after the load returns: wait for it.
            @SuppressWarnings("unchecked")
            Map<String, Object> timing = (Map<String, Object>) driver.executeAsyncScript("""
                    const done = arguments[arguments.length - 1];
                    const nav = performance.getEntriesByType('navigation')[0];
                    const dcl = nav.domContentLoadedEventEnd - nav.startTime;
                    new PerformanceObserver(list => {
                        const fcp = list.getEntriesByName('first-contentful-paint')[0];
                        if (fcp) { done({dcl: dcl, fcp: fcp.startTime}); }
                    }).observe({type: 'paint', buffered: true});
                    setTimeout(() => done({dcl: dcl, fcp: -1}), 5000);""");
            domContentLoaded.add(((Number) timing.get("dcl")).doubleValue());
            firstPaint.add(((Number) timing.get("fcp")).doubleValue());
        }
        return new Timing(domContentLoaded, firstPaint);
    }

    /** The two lines every measurement prints after its own heading. */
    static void print(Weight weight, Timing timing) {
        System.out.printf("  HTML %,d B + CSS %,d B + JS %,d B = %,d B decoded; %,d B transferred "
                        + "(headers included); other requests: %d%n", weight.html(), weight.css(), weight.js(),
                weight.total(), weight.transferred(), weight.otherRequests());
        System.out.printf("  cache disabled, %d loads: domContentLoaded median %.1f ms (min %.1f, max %.1f); "
                        + "first-contentful-paint median %.1f ms (min %.1f, max %.1f)%n", LOADS,
                median(timing.domContentLoaded()), min(timing.domContentLoaded()), max(timing.domContentLoaded()),
                median(timing.firstPaint()), min(timing.firstPaint()), max(timing.firstPaint()));
    }

    private static long number(Map<String, Object> values, String key) {
        return ((Number) values.get(key)).longValue();
    }

    static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }

    private static double min(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).min().orElse(-1);
    }

    private static double max(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).max().orElse(-1);
    }
}
