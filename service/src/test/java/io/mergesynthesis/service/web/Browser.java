package io.mergesynthesis.service.web;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Headless Chromium from the distribution, driven through its own chromedriver. Both paths are given explicitly,
 * so Selenium never runs its manager (which would try to download a browser).
 */
final class Browser implements AutoCloseable {

    static final String CHROMIUM = "/usr/bin/chromium";
    static final String CHROMEDRIVER = "/usr/bin/chromedriver";

    private final ChromeDriver driver;
    private final Path profile;

    private Browser(ChromeDriver driver, Path profile) {
        this.driver = driver;
        this.profile = profile;
    }

    static Browser start() {
        System.setProperty("webdriver.chrome.driver", CHROMEDRIVER);
        Path profile;
        try {
            profile = Files.createTempDirectory("web-inbox-chromium-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-extensions", "--hide-scrollbars", "--force-device-scale-factor=1",
                "--window-size=1280,800", "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER))
                .usingAnyFreePort()
                .build();
        ChromeDriver driver = new ChromeDriver(service, options);
        // Screenshots show the viewport: make it 1280 x 800, whatever the window's own frame takes.
        driver.manage().window().setSize(new Dimension(1280, 800));
        long inner = (Long) driver.executeScript("return window.innerHeight");
        driver.manage().window().setSize(new Dimension(1280, (int) (800 + 800 - inner)));
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
        return new Browser(driver, profile);
    }

    ChromeDriver driver() {
        return driver;
    }

    /** Saves what the browser shows as {@code <name>.png} in the folder {@code ui.screenshots.dir} names. */
    void screenshot(String name) {
        String dir = System.getProperty("ui.screenshots.dir");
        if (dir == null) {
            return;
        }
        try {
            Path target = Path.of(dir).resolve(name + ".png");
            Files.createDirectories(target.getParent());
            File png = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
            Files.copy(png.toPath(), target, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            driver.quit();
        } finally {
            try (Stream<Path> files = Files.walk(profile)) {
                files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            } catch (IOException e) {
                // A temporary profile left behind is harmless.
            }
        }
    }
}
