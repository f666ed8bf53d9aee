package io.mergesynthesis.service.web;

import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.TestApp;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * Measures the inbox as a browser sees it with 1,000 conflicts in the org: the bytes of HTML, CSS and JS it loads,
 * and the time to first render (median of several loads). A measurement, not a test: it asserts nothing and is not
 * part of {@code mvn verify} (its name does not end in Test). Run it with
 * {@code mvn -B test -pl service -Dtest=InboxFirstRenderMeasure -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class InboxFirstRenderMeasure {

    static final int CONFLICTS = 1_000;
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

            PageMeasure.Weight weight = PageMeasure.weight(driver, APP.uri("/").toString());
            PageMeasure.Timing timing = PageMeasure.timing(driver, APP.uri("/").toString());
            System.out.printf("inbox page weight, %d conflicts in the org, first page of %d rows:%n", CONFLICTS,
                    InboxResource.PAGE_SIZE);
            PageMeasure.print(weight, timing);
        }
    }
}
