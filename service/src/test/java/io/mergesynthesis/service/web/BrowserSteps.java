package io.mergesynthesis.service.web;

import io.mergesynthesis.service.testing.TestApp;
import java.time.Duration;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedCondition;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/** The steps every browser test takes: sign in through the form, read an element's text, wait for a change. */
final class BrowserSteps {

    private BrowserSteps() {
    }

    static void signIn(ChromeDriver driver, TestApp app, String token) {
        driver.get(app.uri("/sign-in").toString());
        driver.findElement(By.id("token")).sendKeys(token);
        driver.findElement(By.cssSelector("form button[type=submit]")).click();
        waitFor(driver, ExpectedConditions.not(ExpectedConditions.urlContains("/sign-in")));
    }

    static String text(ChromeDriver driver, String css) {
        return driver.findElement(By.cssSelector(css)).getText();
    }

    /**
     * Polls {@code condition} until it holds, for up to 10 s. A read that lands while the browser replaces the
     * page (a form's answer arriving) can fail with a transient driver error ("node does not belong to the
     * document"); the wait reads again instead of failing, and a condition that never holds still times out.
     */
    static void waitFor(ChromeDriver driver, ExpectedCondition<?> condition) {
        new WebDriverWait(driver, Duration.ofSeconds(10))
                .ignoring(WebDriverException.class)
                .until(condition);
    }
}
