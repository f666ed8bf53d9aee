package io.mergesynthesis.service.web;

import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.TestApp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Measures the operator page as a browser sees it with 1,000 orgs: the bytes it loads and the time to first render,
 * for the first page of the org list and for a search by name. A measurement, not a test: it asserts nothing and
 * is not part of {@code mvn verify}. Run it with
 * {@code mvn -B test -pl service -Dtest=OperatorFirstRenderMeasure -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class OperatorFirstRenderMeasure {

    static final int ORGS = 1_000;
    static final TestApp APP = TestApp.apiOnly(ConfigOverride.config("logging.level", "ERROR"));
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    @Test
    void measure() {
        ManyOrgs.seed(APP.database().jdbi(), ORGS);
        String platform = APP.token(Role.PLATFORM, null);
        try (Browser browser = Browser.start()) {
            ChromeDriver driver = browser.driver();
            driver.get(APP.uri("/sign-in").toString());
            driver.findElement(By.id("token")).sendKeys(platform);
            driver.findElement(By.cssSelector("form button[type=submit]")).click();
            for (String path : new String[] {"/operator", "/operator?q=org+04"}) {
                String url = APP.uri(path).toString();
                PageMeasure.Weight weight = PageMeasure.weight(driver, url);
                PageMeasure.Timing timing = PageMeasure.timing(driver, url);
                System.out.printf("operator page %s, %d orgs, a page of at most %d:%n", path, ORGS,
                        OperatorResource.ORGS_PER_PAGE);
                PageMeasure.print(weight, timing);
                assertThat(weight.total()).as("page weight of %s, bytes", path).isLessThan(50 * 1024);
                assertThat(PageMeasure.median(timing.firstPaint())).as("first contentful paint of %s, ms", path)
                        .isBetween(0.0, 200.0);
            }
        }
    }
}
