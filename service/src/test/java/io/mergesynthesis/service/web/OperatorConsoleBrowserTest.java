package io.mergesynthesis.service.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.replica.HeartbeatWriter;
import io.mergesynthesis.service.replica.ReplicaReadings;
import io.mergesynthesis.service.testing.TestApp;
import io.mergesynthesis.synthesis.CircuitStatus;
import io.mergesynthesis.synthesis.ProviderState;
import io.mergesynthesis.testsupport.Wait;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.Rectangle;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;

/**
 * The operator's console in headless Chromium: failed conflicts across orgs tried again, an org given a name and
 * shown by it, a replica that stops beating marked gone and then removed (and the org called shown with its share
 * of the calls), a token minted in the page that signs in and, once revoked, is refused, and the fleet's activity
 * drawn over time. Each test works on orgs of its own.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class OperatorConsoleBrowserTest {

    /** This replica beats quickly, so that a silent replica's row is pruned within a test's patience. */
    static final TestApp APP = TestApp.create(ConfigOverride.config("synthesis.enabled", "false"),
            ConfigOverride.config("heartbeatInterval", "300ms"));
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    static final UUID ORG_FAILED = UUID.fromString("7d3f0c2a-5b61-4e8f-9a47-1c2d3e4f5a60");
    static final UUID ORG_OTHER = UUID.fromString("0b9e8d7c-6f5a-4b3c-8d2e-1f0a9b8c7d61");
    static final UUID ORG_NAMED = UUID.fromString("a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c62");
    static final UUID ORG_TOKENS = UUID.fromString("c4d5e6f7-0819-4a2b-8c3d-4e5f60718293");

    static Browser browser;
    static ChromeDriver driver;
    static Jdbi superuser;
    static String platform;
    static UUID jsonFirst;
    static UUID jsonSecond;
    static UUID synthesizerFailed;
    static UUID namedConflict;

    @BeforeAll
    static void seed() {
        superuser = APP.database().jdbi();
        platform = APP.token(Role.PLATFORM, null);
        jsonFirst = failed(ORG_FAILED, "json-1", "crm.export_contacts", "invalid_json");
        jsonSecond = failed(ORG_OTHER, "json-2", "kb.search", "invalid_json");
        synthesizerFailed = failed(ORG_OTHER, "synth-1", "slack.post_message", "synthesizer");
        UUID named = WebSeed.one(APP, platform, ORG_NAMED, "named-1", "drive.share_file");
        namedConflict = named;
        WebSeed.call(superuser, ORG_NAMED, named, 1, "primary", "openai", "model-small", 900, 210, "0.0040", "stored");
        // Activity for the charts: merges over the last hours and days, a deferral, paid calls.
        for (int minutesAgo : new int[] {2, 3, 3, 17, 45, 90, 150}) {
            mergeEvent(ORG_NAMED, named, Instant.now().minus(Duration.ofMinutes(minutesAgo)));
        }
        for (int daysAgo : new int[] {1, 4, 4, 9, 20}) {
            mergeEvent(ORG_NAMED, named, Instant.now().minus(Duration.ofDays(daysAgo)));
        }
        WebSeed.attempt(superuser, ORG_NAMED, named, 1, "deferred", "rate_limited", "provider asked to wait");
        browser = Browser.start();
        driver = browser.driver();
    }

    @AfterAll
    static void closeBrowser() {
        if (browser != null) {
            browser.close();
        }
    }

    @BeforeEach
    void signedOut() {
        driver.get(url("/sign-in"));
        driver.manage().deleteAllCookies();
    }

    @Test
    void eachFailedConflictOpensOnItsOwnPageWithItsFindings() {
        UUID org = UUID.fromString("f6071829-3a4b-4c5d-8e6f-708192a3b4c5");
        UUID conflict = failed(org, "open-1", "wiki.publish_page", "write_merge");
        signIn(platform);
        driver.get(url("/operator/failed?org=" + org));
        driver.findElement(By.cssSelector("#failed-" + conflict + " button.open-conflict")).click();
        wait(ExpectedConditions.urlContains("/conflicts/" + conflict));
        assertThat(driver.getTitle()).contains("wiki.publish_page");
        assertThat(text("section[aria-labelledby='merge-heading']")).contains("write_merge");
        assertThat(text("dl.facts [data-field='state']")).isEqualTo("failed");
    }

    @Test
    void anOrgsModelChoiceStaysInsideItsCellAtAUsualWindowWidth() {
        UUID org = UUID.fromString("e5f60718-2930-4a4b-8c5d-6e7f80910204");
        WebSeed.one(APP, platform, org, "wide-1", "jira.create_issue");
        // A stored model no longer configured is still offered, under its long name and a note: the widest option.
        superuser.useHandle(h -> h.createUpdate("INSERT INTO org_synthesis_settings (org_id, model) VALUES (:org, :m)")
                .bind("org", org).bind("m", "anthropic/claude-sonnet-4-5-with-a-long-dated-name-20250929").execute());
        signIn(platform);
        driver.get(url("/operator?q=" + org));
        WebElement select = driver.findElement(By.id("model-" + org));
        Rectangle box = select.getRect();
        Rectangle cell = select.findElement(By.xpath("ancestor::td[1]")).getRect();
        Rectangle table = select.findElement(By.xpath("ancestor::table[1]")).getRect();
        assertThat(box.getX()).isGreaterThanOrEqualTo(cell.getX());
        assertThat(box.getX() + box.getWidth()).as("the select's right edge within its cell")
                .isLessThanOrEqualTo(cell.getX() + cell.getWidth());
        assertThat(cell.getX() + cell.getWidth()).as("the cell's right edge within the table")
                .isLessThanOrEqualTo(table.getX() + table.getWidth());
        int viewport = ((Long) driver.executeScript("return document.documentElement.clientWidth")).intValue();
        assertThat(table.getX() + table.getWidth()).as("the table within the window").isLessThanOrEqualTo(viewport);
    }

    @Test
    void aFailedConflictIsTriedAgainFromTheOperatorsList() {
        signIn(platform);
        // Today's table of failures by reason links to the list.
        driver.findElement(By.cssSelector("a[href='/operator/failed?reason=invalid_json']")).click();
        wait(ExpectedConditions.urlContains("/operator/failed?reason=invalid_json"));
        List<WebElement> rows = driver.findElements(By.cssSelector("table.failed tbody tr"));
        assertThat(rows).hasSize(2);
        assertThat(text("table.failed")).contains("crm.export_contacts").contains("kb.search")
                .doesNotContain("slack.post_message");
        assertThat(text("#failed-" + jsonFirst)).contains(ORG_FAILED.toString()).contains("invalid_json").contains("3");
        browser.screenshot("operator-failed");

        // One row: only that conflict goes back to pending, and the list keeps its filter.
        driver.findElement(By.cssSelector("#failed-" + jsonFirst + " form[action='/operator/failed/retry'] button"))
                .click();
        wait(ExpectedConditions.urlContains("notice=requeued"));
        assertThat(driver.getCurrentUrl()).contains("reason=invalid_json");
        assertThat(text("p.notice")).contains("Queued again");
        assertThat(state(jsonFirst)).isEqualTo("pending");
        assertThat(state(jsonSecond)).isEqualTo("max_attempts_exceeded");
        assertThat(driver.findElements(By.cssSelector("table.failed tbody tr"))).hasSize(1);

        // The same row's form sent again (from a page left open) is refused, saying why, and changes nothing.
        driver.executeScript("const form = document"
                + ".querySelector(\"table.failed form[action='/operator/failed/retry']\").cloneNode(true);"
                + "form.querySelector('input[name=conflict]').value = arguments[0];"
                + "document.body.appendChild(form); form.submit();", jsonFirst.toString());
        wait(ExpectedConditions.urlContains("notice=not_marked"));
        assertThat(text("p.notice")).contains("Not queued again");
        assertThat(state(jsonFirst)).isEqualTo("pending");

        // Every conflict of one reason, across orgs: the synthesizer failure stays marked.
        new Select(driver.findElement(By.id("reason"))).selectByValue("invalid_json");
        // The address held the reason before the click too: wait for the old page to go, then for the new one.
        WebElement filter = driver.findElement(By.cssSelector("form.filters button"));
        filter.click();
        wait(ExpectedConditions.stalenessOf(filter));
        wait(ExpectedConditions.presenceOfElementLocated(By.cssSelector("form.retry-reason button")));
        driver.findElement(By.cssSelector("form.retry-reason button")).click();
        wait(ExpectedConditions.urlContains("notice=requeued_reason"));
        assertThat(state(jsonSecond)).isEqualTo("pending");
        assertThat(state(synthesizerFailed)).isEqualTo("max_attempts_exceeded");
        Long requeueEvents = superuser.withHandle(h -> h.createQuery("""
                        SELECT count(*) FROM conflict_events
                         WHERE event_type = 'synthesis_requeued' AND conflict_id IN (:a, :b)
                           AND details ->> 'role' = 'platform'""")
                .bind("a", jsonFirst).bind("b", jsonSecond).mapTo(Long.class).one());
        assertThat(requeueEvents).isEqualTo(2);
    }

    @Test
    void anOrgGivenANameIsShownByItEverywhere() {
        signIn(platform);
        driver.get(url("/operator/orgs/" + ORG_NAMED));
        assertThat(text("#org-id")).isEqualTo(ORG_NAMED.toString());
        driver.findElement(By.id("name")).sendKeys("Acme <Research>");
        driver.findElement(By.xpath("//button[text()='Save name']")).click();
        wait(ExpectedConditions.urlContains("notice=named"));
        assertThat(text("h1")).isEqualTo("Org Acme <Research>");
        assertThat(text("#org-id")).isEqualTo(ORG_NAMED.toString());

        // A name with a control character is refused and the stored one stays.
        WebElement name = driver.findElement(By.id("name"));
        driver.executeScript("arguments[0].value = 'Bad\\u0007name'", name);
        driver.findElement(By.xpath("//button[text()='Save name']")).click();
        wait(ExpectedConditions.urlContains("notice=invalid_name"));
        assertThat(text("#org-name")).isEqualTo("Acme <Research>");

        // The org list shows the name, the id on hover; a search by the name's first letters finds it alone.
        driver.get(url("/operator"));
        WebElement label = driver.findElement(By.xpath("//span[@class='org-name'][text()='Acme <Research>']"));
        assertThat(label.getAttribute("title")).isEqualTo("org " + ORG_NAMED);
        driver.findElement(By.id("org-search")).sendKeys("acme");
        driver.findElement(By.cssSelector("form.org-search button")).click();
        wait(ExpectedConditions.urlContains("q=acme"));
        List<WebElement> rows = driver.findElements(By.cssSelector("table.orgs tbody tr"));
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0).getText()).contains("Acme <Research>").doesNotContain(ORG_NAMED.toString());
        browser.screenshot("operator-orgs");

        // Viewing the org's inbox, the header names it.
        driver.findElement(By.xpath("//button[starts-with(., 'View inbox')]")).click();
        wait(ExpectedConditions.urlToBe(url("/")));
        assertThat(text("header.top")).contains("Acme <Research>").doesNotContain(ORG_NAMED.toString());

        List<String> names = superuser.withHandle(h -> h.createQuery("""
                        SELECT details ->> 'name' FROM conflict_events
                         WHERE event_type = 'org_named' AND org_id = :org AND conflict_id IS NULL""")
                .bind("org", ORG_NAMED).mapTo(String.class).list());
        assertThat(names).containsExactly("Acme <Research>");
    }

    @Test
    void aReplicaThatStopsBeatingIsMarkedGoneThenLeavesTheList() throws Exception {
        String id = "drill-host-" + UUID.randomUUID().toString().substring(0, 8);
        ReplicaReadings readings = new Readings(id, () -> List.of(
                new ProviderState(new CircuitStatus("anthropic", true, "open since 12:00:03 after 5 failures"), 3,
                        0),
                new ProviderState(new CircuitStatus("openai", false, "closed"), 8, 2.5)));
        HeartbeatWriter writer = new HeartbeatWriter(APP.database().transactions(), readings, "drill-host", "test",
                Duration.ofMillis(500), Clock.systemUTC());
        writer.beat();
        // A call of the last minute: its org, the only one called, has every call and is due all of them.
        WebSeed.call(superuser, ORG_NAMED, namedConflict, 2, "primary", "openai", "model-small", 900, 210, "0.0040",
                "stored");
        signIn(platform);
        driver.get(url("/operator/replicas"));
        WebElement row = driver.findElement(By.cssSelector("tr[data-replica='" + id + "']"));
        assertThat(row.getText()).contains("live").contains("3 of 8").contains("circuit open").contains("limit 3")
                .contains("2.50 requests/s");
        WebElement share = driver.findElement(By.cssSelector("table.shares tr.share[data-org='" + ORG_NAMED + "']"));
        assertThat(share.findElement(By.cssSelector("td.share")).getText()).isEqualTo("100.0%");
        assertThat(share.findElement(By.cssSelector("td.due")).getText()).isEqualTo("100.0%");
        // This replica itself beats too, with no pool.
        assertThat(driver.findElements(By.cssSelector("tr.replica.live")).size()).isGreaterThanOrEqualTo(2);
        browser.screenshot("operator-replicas");

        // It stops beating, as a replica that dies does: after three intervals it reads as gone ...
        refreshUntil(() -> !driver.findElements(By.cssSelector("tr.replica.gone[data-replica='" + id + "']")).isEmpty(),
                Duration.ofSeconds(10));
        assertThat(text("tr[data-replica='" + id + "']")).contains("gone: silent for");
        // ... and after ten, another replica's beat deletes its row.
        refreshUntil(() -> driver.findElements(By.cssSelector("tr[data-replica='" + id + "']")).isEmpty(),
                Duration.ofSeconds(15));
    }

    @Test
    void aTokenMintedInThePageSignsInAndOnceRevokedIsRefused() {
        signIn(platform);
        driver.get(url("/operator/tokens"));
        new Select(driver.findElement(By.id("mint-role"))).selectByValue("org_admin");
        driver.findElement(By.id("mint-org")).sendKeys(ORG_TOKENS.toString());
        new Select(driver.findElement(By.id("mint-expires"))).selectByValue("1d");
        driver.findElement(By.xpath("//button[text()='Mint']")).click();
        wait(ExpectedConditions.presenceOfElementLocated(By.id("minted-secret")));
        String secret = driver.findElement(By.id("minted-secret")).getAttribute("value");
        assertThat(secret).startsWith("msk_");
        assertThat(driver.getCurrentUrl()).doesNotContain(secret);
        String prefix = secret.substring(0, 12);
        WebElement row = driver.findElement(By.xpath("//tr[td/code[text()='" + prefix + "']]"));
        assertThat(row.getText()).contains("org_admin").contains(ORG_TOKENS.toString()).contains("active");
        browser.screenshot("operator-tokens");
        // Shown once: the list page never carries it again.
        driver.get(url("/operator/tokens"));
        assertThat(driver.getPageSource()).doesNotContain(secret);

        // The minted token signs in, as an org admin of its org.
        driver.manage().deleteAllCookies();
        signIn(secret);
        assertThat(driver.getCurrentUrl()).isEqualTo(url("/"));
        assertThat(text("header.top")).contains("org_admin").contains(ORG_TOKENS.toString());

        // Revoked from the page: its session ends and it signs in no more.
        driver.manage().deleteAllCookies();
        signIn(platform);
        driver.get(url("/operator/tokens"));
        driver.findElement(By.xpath("//tr[td/code[text()='" + prefix + "']]//button[starts-with(., 'Revoke')]"))
                .click();
        wait(ExpectedConditions.urlContains("notice=revoked"));
        assertThat(driver.findElement(By.xpath("//tr[td/code[text()='" + prefix + "']]")).getText()).contains("revoked");
        driver.manage().deleteAllCookies();
        driver.get(url("/sign-in"));
        driver.findElement(By.id("token")).sendKeys(secret);
        driver.findElement(By.cssSelector("form button[type=submit]")).click();
        wait(ExpectedConditions.textToBePresentInElementLocated(By.id("sign-in-problem"), "not valid"));

        List<String> events = superuser.withHandle(h -> h.createQuery("""
                        SELECT event_type FROM conflict_events
                         WHERE org_id = :org AND details ->> 'subject_token_prefix' = :prefix ORDER BY id""")
                .bind("org", ORG_TOKENS).bind("prefix", prefix).mapTo(String.class).list());
        assertThat(events).containsExactly("token_minted", "token_revoked");
    }

    @Test
    void aProviderBatchIsListedWithItsCostAndCanceledFromThePage() {
        UUID org = UUID.fromString("d5e6f708-192a-4b3c-8d4e-5f6071829304");
        UUID batch = UUID.randomUUID();
        // A batch the lane sent an hour ago, in progress at its provider, and one done before it.
        superuser.useHandle(h -> h.createUpdate("""
                        INSERT INTO llm_batches (id, org_id, provider, model, provider_batch_id, state, requests,
                                                 reserved_cost_usd, created_at, sent_at)
                        VALUES (:id, :org, 'anthropic', 'claude-haiku-4-5', 'msgbatch_console', 'in_progress', 120,
                                0.84, now() - interval '1 hour', now() - interval '1 hour');
                        INSERT INTO llm_batches (id, org_id, provider, model, provider_batch_id, state, requests,
                                                 reserved_cost_usd, cost_usd, created_at, sent_at, ended_at)
                        VALUES (:done, :org, 'openai', 'gpt-5-mini', 'batch_console_done', 'done', 40, 0.30, 0.12,
                                now() - interval '3 hours', now() - interval '3 hours', now() - interval '2 hours')""")
                .bind("id", batch).bind("done", UUID.randomUUID()).bind("org", org).execute());
        signIn(platform);
        driver.get(url("/operator/batches"));
        WebElement row = driver.findElement(By.id("batch-" + batch));
        assertThat(row.getText()).contains("anthropic/claude-haiku-4-5").contains("msgbatch_console")
                .contains("120").contains("in progress").contains("$0.84").contains("reserved").contains("1 h");
        WebElement done = driver.findElement(By.xpath("//tr[td/code[text()='batch_console_done']]"));
        assertThat(done.getText()).contains("$0.12").doesNotContain("reserved");
        assertThat(done.findElements(By.tagName("button"))).as("a done batch has nothing to cancel").isEmpty();
        browser.screenshot("operator-batches");

        row.findElement(By.xpath(".//button[starts-with(., 'Cancel')]")).click();
        wait(ExpectedConditions.urlContains("notice=cancel_asked"));
        assertThat(driver.findElement(By.id("batch-" + batch)).getText()).contains("requested, not yet sent");
        String asked = superuser.withHandle(h -> h.createQuery(
                "SELECT cancel_reason FROM llm_batches WHERE id = :id").bind("id", batch).mapTo(String.class).one());
        assertThat(asked).isEqualTo("requested");
        long events = superuser.withHandle(h -> h.createQuery("""
                        SELECT count(*) FROM conflict_events
                         WHERE org_id = :org AND event_type = 'batch_cancel_requested'""")
                .bind("org", org).mapTo(Long.class).one());
        assertThat(events).isEqualTo(1);
    }

    @Test
    void theFleetsActivityIsDrawnOverTimeWithItsNumbers() {
        signIn(platform);
        driver.get(url("/operator/time"));
        assertThat(driver.findElements(By.cssSelector("svg.activity"))).hasSize(8);
        assertThat(driver.findElements(By.cssSelector("svg.activity polyline")).get(0).getAttribute("points"))
                .contains(",");
        // The numbers behind the lines, for screen readers: the minutes' spend adds up to the paid calls seeded
        // (the setup's, and the shares test's when it ran first, maybe in the same minute); per day, all thirty.
        BigDecimal seeded = superuser.withHandle(h -> h.createQuery("""
                        SELECT coalesce(sum(cost_usd), 0) FROM llm_usage_events
                         WHERE created_at > now() - interval '1 hour'""")
                .mapTo(BigDecimal.class).one());
        BigDecimal shown = driver.findElements(By.cssSelector("#minute-numbers tbody tr td:nth-of-type(4)")).stream()
                .map(td -> new BigDecimal(td.getAttribute("textContent").trim().replace("$", "").replace(",", "")))
                .reduce(BigDecimal.ZERO, BigDecimal::add);
        assertThat(seeded).as("paid calls seeded").isPositive();
        assertThat(shown).as("the minutes' spend").isEqualByComparingTo(seeded);
        assertThat(driver.findElements(By.cssSelector("#day-numbers tbody tr"))).hasSize(30);
        long merges = driver.findElements(By.cssSelector("#day-numbers tbody tr td:nth-of-type(1)")).stream()
                .mapToLong(td -> Long.parseLong(td.getAttribute("textContent"))).sum();
        assertThat(merges).isEqualTo(12);
        long deferrals = driver.findElements(By.cssSelector("#day-numbers tbody tr td:nth-of-type(3)")).stream()
                .mapToLong(td -> Long.parseLong(td.getAttribute("textContent"))).sum();
        assertThat(deferrals).isEqualTo(1);
        browser.screenshot("operator-time");
    }

    private static UUID failed(UUID org, String key, String target, String reason) {
        UUID id = WebSeed.one(APP, platform, org, key, target);
        WebSeed.failed(superuser, id, reason);
        return id;
    }

    private static void mergeEvent(UUID org, UUID conflict, Instant at) {
        superuser.useHandle(h -> h.createUpdate("""
                        INSERT INTO conflict_events (org_id, conflict_id, event_type, occurred_at)
                        VALUES (:org, :conflict, 'merge_synthesized', :at)""")
                .bind("org", org).bind("conflict", conflict).bind("at", java.sql.Timestamp.from(at)).execute());
    }

    private static String state(UUID conflict) {
        return superuser.withHandle(h -> h.createQuery("SELECT synthesis_state FROM policy_conflicts WHERE id = :id")
                .bind("id", conflict).mapTo(String.class).one());
    }

    /** A replica's readings as a test sets them: three of eight workers busy, providers as given. */
    private record Readings(String replicaId, Supplier<List<ProviderState>> states) implements ReplicaReadings {
        @Override
        public int workers() {
            return 8;
        }

        @Override
        public int inFlight() {
            return 3;
        }

        @Override
        public Instant lastClaim() {
            return Instant.now().minusSeconds(4);
        }

        @Override
        public List<ProviderState> providers() {
            return states.get();
        }
    }

    private static void refreshUntil(Supplier<Boolean> condition, Duration patience) {
        Wait.until("the replica list to change", patience, () -> {
            if (condition.get()) {
                return true;
            }
            driver.navigate().refresh();
            return false;
        });
    }

    private static void signIn(String token) {
        BrowserSteps.signIn(driver, APP, token);
    }

    private static String text(String css) {
        return BrowserSteps.text(driver, css);
    }

    private static void wait(org.openqa.selenium.support.ui.ExpectedCondition<?> condition) {
        BrowserSteps.waitFor(driver, condition);
    }

    static String url(String path) {
        return APP.uri(path).toString();
    }
}
