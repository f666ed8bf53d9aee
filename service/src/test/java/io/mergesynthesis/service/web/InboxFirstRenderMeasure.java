package io.mergesynthesis.service.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.TestApp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * Measures the inbox as a browser sees it with 1,000 conflicts in the org: the bytes of HTML, CSS and JS it loads,
 * the time to first render (median of several loads), and the bytes of one poll of its live JSON view. A measurement,
 * not part of {@code mvn verify} (its name does not end in Test); it fails only when the page is over its budget of
 * 50 KB and 200 ms to first contentful paint. Run it with
 * {@code mvn -B test -pl service -Dtest=InboxFirstRenderMeasure -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class InboxFirstRenderMeasure {

    static final int CONFLICTS = 1_000;
    static final int LOADS = 21;
    static final TestApp APP = TestApp.apiOnly(ConfigOverride.config("logging.level", "ERROR"));
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    @Test
    void measure() {
        UUID org = UUID.randomUUID();
        String platform = APP.token(Role.PLATFORM, null);
        for (int start = 0; start < CONFLICTS; start += 500) {
            List<String> reports = new ArrayList<>();
            for (int i = start; i < start + 500; i++) {
                reports.add(WebSeed.report(org, "measure-" + i, "tool-" + (i % 40) + ".action_" + i));
            }
            List<UUID> ids = WebSeed.ingest(APP, platform, WebSeed.batch(reports));
            for (int i = 0; i < ids.size(); i += 2) {
                WebSeed.synthesized(APP.database().jdbi(), ids.get(i),
                        WebSeed.merge(ids.get(i), org, "tool.action", "The org rule wins."));
            }
        }
        String admin = APP.token(Role.ORG_ADMIN, org);
        try (Browser browser = Browser.start()) {
            ChromeDriver driver = browser.driver();
            driver.get(APP.uri("/sign-in").toString());
            driver.findElement(By.id("token")).sendKeys(admin);
            driver.findElement(By.cssSelector("form button[type=submit]")).click();

            // A cold load first: nothing cached, so every byte is counted once.
            driver.executeCdpCommand("Network.enable", Map.of());
            driver.executeCdpCommand("Network.clearBrowserCache", Map.of());
            driver.executeCdpCommand("Network.setCacheDisabled", Map.of("cacheDisabled", true));
            driver.get(APP.uri("/").toString());
            @SuppressWarnings("unchecked")
            Map<String, Object> weight = (Map<String, Object>) driver.executeScript("""
                    const nav = performance.getEntriesByType('navigation')[0];
                    const res = performance.getEntriesByType('resource');
                    const sum = (kind, f) => res.filter(r => r.initiatorType === kind).reduce((a, r) => a + r[f], 0);
                    return {html: nav.decodedBodySize, htmlTransfer: nav.transferSize,
                            css: sum('link', 'decodedBodySize'), js: sum('script', 'decodedBodySize'),
                            other: res.filter(r => r.initiatorType !== 'link' && r.initiatorType !== 'script').length,
                            transfer: nav.transferSize + res.reduce((a, r) => a + r.transferSize, 0)};""");

            List<Double> domContentLoaded = new ArrayList<>();
            List<Double> firstPaint = new ArrayList<>();
            List<Double> serverTime = new ArrayList<>();
            for (int i = 0; i < LOADS; i++) {
                driver.get(APP.uri("/").toString());
                // The paint entry may be recorded a moment after the load returns: wait for it.
                @SuppressWarnings("unchecked")
                Map<String, Object> timing = (Map<String, Object>) driver.executeAsyncScript("""
                        const done = arguments[arguments.length - 1];
                        const nav = performance.getEntriesByType('navigation')[0];
                        const dcl = nav.domContentLoadedEventEnd - nav.startTime;
                        const server = nav.responseEnd - nav.requestStart;
                        new PerformanceObserver(list => {
                            const fcp = list.getEntriesByName('first-contentful-paint')[0];
                            if (fcp) { done({dcl: dcl, fcp: fcp.startTime, server: server}); }
                        }).observe({type: 'paint', buffered: true});
                        setTimeout(() => done({dcl: dcl, fcp: -1, server: server}), 5000);""");
                domContentLoaded.add(((Number) timing.get("dcl")).doubleValue());
                firstPaint.add(((Number) timing.get("fcp")).doubleValue());
                serverTime.add(((Number) timing.get("server")).doubleValue());
            }
            Number poll = (Number) driver.executeAsyncScript("""
                    const done = arguments[arguments.length - 1];
                    fetch('/live/inbox', {credentials: 'same-origin'}).then(r => r.text()).then(t => done(t.length));""");
            long html = ((Number) weight.get("html")).longValue();
            long css = ((Number) weight.get("css")).longValue();
            long js = ((Number) weight.get("js")).longValue();
            System.out.printf("inbox page weight, %d conflicts in the org, first page of %d rows:%n", CONFLICTS,
                    InboxResource.PAGE_SIZE);
            System.out.printf("  HTML %,d B + CSS %,d B + JS %,d B = %,d B decoded; %,d B transferred "
                    + "(headers included); other requests: %s%n", html, css, js, html + css + js,
                    ((Number) weight.get("transfer")).longValue(), weight.get("other"));
            System.out.printf("  cache disabled, %d loads: domContentLoaded median %.1f ms (min %.1f, max %.1f); "
                    + "first-contentful-paint median %.1f ms (min %.1f, max %.1f)%n", LOADS,
                    median(domContentLoaded), min(domContentLoaded), max(domContentLoaded),
                    median(firstPaint), min(firstPaint), max(firstPaint));
            System.out.printf("  the page's own request (request sent to last byte): median %.1f ms (min %.1f, max %.1f)%n",
                    median(serverTime), min(serverTime), max(serverTime));
            System.out.printf("  one poll of the live JSON view: %,d B%n", poll.longValue());
            assertThat(html + css + js).as("page weight, bytes").isLessThan(50 * 1024);
            assertThat(median(firstPaint)).as("first contentful paint, ms")
                    .isBetween(0.0, 200.0);
        }
    }

    private static double median(List<Double> values) {
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
