package io.mergesynthesis.service.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.Seed;
import io.mergesynthesis.service.testing.TestApp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedCondition;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * An org admin's inbox at depth, in headless Chromium: pages that update while open, search and paging both ways,
 * bulk actions with refused conflicts among the chosen, and the rule-by-rule diff of a merge. Changes seen live
 * are made through the real use cases (the JSON API's acknowledge, retry and ingest) while the page stays loaded.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class InboxAdminBrowserTest {

    static final TestApp APP = TestApp.apiOnly();
    private static final Pattern LIVE_AGE = Pattern.compile("updated (\\d+) s ago");
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    // A fixed org keeps the screenshots the same from run to run.
    static final UUID ORG = UUID.fromString("7d1e5a3c-2b4f-4c6d-8e9f-0a1b2c3d4e5f");
    static final UUID OTHER_ORG = UUID.fromString("0f9e8d7c-6b5a-4948-8372-615243342516");
    static final String[] TARGETS = {"github.delete_repo", "jira.create_issue", "slack.post_message",
            "crm.export_contacts", "drive.share_file", "calendar.create_event"};

    static Browser browser;
    static ChromeDriver driver;
    static Jdbi superuser;
    static String ingest;
    static String admin;

    @BeforeAll
    static void seed() {
        superuser = APP.database().jdbi();
        ingest = APP.token(Role.INGEST, ORG);
        admin = APP.token(Role.ORG_ADMIN, ORG);
        List<String> reports = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            reports.add(WebSeed.report(ORG, "filler-" + i, TARGETS[i % TARGETS.length] + "_" + i));
        }
        List<UUID> fillers = WebSeed.ingest(APP, ingest, WebSeed.batch(reports));
        for (int i = 0; i < fillers.size(); i += 2) {
            WebSeed.synthesized(superuser, fillers.get(i), WebSeed.merge(fillers.get(i), ORG, "x.y", "The org rule wins."));
        }
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
    void signedIn() {
        driver.get(url("/sign-in"));
        driver.manage().deleteAllCookies();
        driver.get(url("/sign-in"));
        driver.findElement(By.id("token")).sendKeys(admin);
        driver.findElement(By.cssSelector("form button[type=submit]")).click();
        waitFor(ExpectedConditions.not(ExpectedConditions.urlContains("/sign-in")));
    }

    @Test
    void theInboxOpensOnConflictsNotYetResolvedWithResolvedOnesOneClickAway() {
        UUID resolved = WebSeed.one(APP, ingest, ORG, "shown-resolved", "yyy.resolved_already");
        assertThat(APP.post(admin, "/v1/conflicts/" + resolved + "/resolve", "{\"resolution\": \"manual\"}")
                .statusCode()).isEqualTo(200);
        UUID acknowledged = WebSeed.one(APP, ingest, ORG, "shown-acknowledged", "yyy.acknowledged_only");
        assertThat(APP.post(admin, "/v1/conflicts/" + acknowledged + "/acknowledge", "").statusCode()).isEqualTo(200);
        UUID open = WebSeed.one(APP, ingest, ORG, "shown-open", "yyy.still_open");

        driver.get(url("/"));
        By resolvedRow = By.cssSelector("tr[data-id='" + resolved + "']");
        assertThat(driver.findElements(resolvedRow)).as("a resolved conflict, on the default page").isEmpty();
        assertThat(driver.findElements(By.cssSelector("tr[data-id='" + open + "']"))).hasSize(1);
        assertThat(driver.findElements(By.cssSelector("tr[data-id='" + acknowledged + "']"))).hasSize(1);
        assertThat(new Select(driver.findElement(By.id("inbox_status"))).getFirstSelectedOption().getText())
                .isEqualTo("not resolved");
        // The page says what it lists, in numbers that add up to the counts above it.
        long total = Long.parseLong(text("[data-count='total']"));
        long resolvedCount = Long.parseLong(text(".counts [data-count='inbox:resolved']"));
        assertThat(resolvedCount).isPositive();
        assertThat(text("#shown")).contains("not yet resolved (" + (total - resolvedCount) + ")")
                .contains(resolvedCount + " resolved left out");

        driver.findElement(By.linkText("Show resolved too")).click();
        waitFor(ExpectedConditions.presenceOfElementLocated(resolvedRow));
        assertThat(driver.getCurrentUrl()).contains("inbox_status=all");
        assertThat(new Select(driver.findElement(By.id("inbox_status"))).getFirstSelectedOption().getText())
                .isEqualTo("any");
        assertThat(text("#shown")).contains("resolved ones included");
        driver.findElement(By.linkText("Hide resolved")).click();
        waitFor(ExpectedConditions.invisibilityOfElementLocated(resolvedRow));

        // The JSON API keeps its own default: every status.
        assertThat(APP.get(admin, "/v1/conflicts?limit=5").body()).contains(resolved.toString());
    }

    @Test
    void theInboxAndAConflictUpdateWhileOpenWithoutAReload() {
        UUID toAcknowledge = WebSeed.one(APP, ingest, ORG, "live-ack", "zoom.start_meeting");
        UUID marked = WebSeed.one(APP, ingest, ORG, "live-failed", "hr.read_salaries");
        WebSeed.failed(superuser, marked, "synthesizer");

        driver.get(url("/"));
        driver.executeScript("window.loadedOnce = 'yes';");
        waitFor(ExpectedConditions.textToBePresentInElementLocated(By.id("live-status"), "updated"));
        assertThat(text("#live-status")).matches("Live · updated \\d+ s ago");
        String acknowledgedBefore = text("[data-count='inbox:acknowledged']");
        String totalBefore = text("[data-count='total']");

        // Through the real use cases, while the page stays as it is: an acknowledge and a new conflict.
        assertThat(APP.post(admin, "/v1/conflicts/" + toAcknowledge + "/acknowledge", "").statusCode()).isEqualTo(200);
        UUID arrived = WebSeed.one(APP, ingest, ORG, "live-new", "aaa.arrived_while_open");
        By ackBadge = By.cssSelector("tr[data-id='" + toAcknowledge + "'] [data-field='inbox']");
        waitFor(ExpectedConditions.textToBe(ackBadge, "acknowledged"));
        // Who acknowledged it, and when, appear beside the badge as well.
        String ackBy = "tr[data-id='" + toAcknowledge + "'] .by";
        waitFor(ExpectedConditions.presenceOfElementLocated(By.cssSelector(ackBy)));
        String byLive = text(ackBy);
        assertThat(byLive).startsWith("by ").endsWith(", just now");
        waitFor(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-id='" + arrived + "']")));
        assertThat(text("tr[data-id='" + arrived + "']")).contains("aaa.arrived_while_open").contains("pending");
        assertThat(driver.findElements(By.cssSelector("table.conflicts tbody tr")).get(0).getAttribute("data-id"))
                .isEqualTo(arrived.toString());
        assertThat(Long.parseLong(text("[data-count='inbox:acknowledged']")))
                .isEqualTo(Long.parseLong(acknowledgedBefore) + 1);
        assertThat(Long.parseLong(text("[data-count='total']"))).isEqualTo(Long.parseLong(totalBefore) + 1);
        assertThat(driver.executeScript("return window.loadedOnce")).as("the page was not reloaded").isEqualTo("yes");
        // The new row can be ticked for a bulk action like the others.
        assertThat(driver.findElements(By.cssSelector("tr[data-id='" + arrived + "'] input[type=checkbox][form=bulk]")))
                .hasSize(1);
        browser.screenshot("inbox-live");
        // What the script wrote is what the server renders on a load.
        driver.navigate().refresh();
        assertThat(text(ackBy)).isEqualTo(byLive);

        // A failed conflict's page sees it queued again when someone tries it again elsewhere.
        driver.get(url("/conflicts/" + marked));
        driver.executeScript("window.loadedOnce = 'yes';");
        assertThat(text("dl.facts [data-field='state']")).isEqualTo("failed");
        assertThat(APP.post(admin, "/v1/conflicts/" + marked + "/retry", "").statusCode()).isEqualTo(200);
        waitFor(ExpectedConditions.textToBe(By.cssSelector("dl.facts [data-field='state']"), "pending"));
        assertThat(text("dl.facts [data-field='attempts']")).isEqualTo("0");
        // The body follows the facts above it: the failure gives way to the wait for a suggestion...
        By mergeSection = By.cssSelector("section[aria-labelledby='merge-heading']");
        waitFor(ExpectedConditions.textToBePresentInElementLocated(mergeSection, "No suggestion yet"));
        // ...and once the merge is written, the suggestion itself is shown, all without a reload.
        WebSeed.synthesized(superuser, marked, WebSeed.merge(marked, ORG, "hr.read_salaries",
                "Salaries stay behind the org rule."));
        waitFor(ExpectedConditions.textToBe(By.cssSelector("dl.facts [data-field='state']"), "merge ready"));
        waitFor(ExpectedConditions.textToBePresentInElementLocated(mergeSection, "Salaries stay behind the org rule."));
        assertThat(text("section[aria-labelledby='merge-heading']")).doesNotContain("No suggestion yet");
        assertThat(driver.executeScript("return window.loadedOnce")).isEqualTo("yes");

        // A hidden tab stops asking and says so; shown again, it asks at once. While hidden, the page's own age
        // line goes on counting the seconds on the browser's clock: once it has counted two poll intervals (5 s
        // each), at most the one request that was already on its way has been made.
        visibility("hidden");
        waitFor(ExpectedConditions.textToBePresentInElementLocated(By.id("live-status"), "(paused)"));
        long hiddenAt = liveRequests();
        long ageWhenHidden = liveAgeSeconds();
        new WebDriverWait(driver, Duration.ofSeconds(30)).ignoring(WebDriverException.class)
                .until(d -> liveAgeSeconds() >= ageWhenHidden + 11);
        long whileHidden = liveRequests();
        assertThat(whileHidden).isLessThanOrEqualTo(hiddenAt + 1);
        visibility("visible");
        waitFor(d -> liveRequests() > whileHidden);
        assertThat(text("#live-status")).doesNotContain("paused");
    }

    private static void visibility(String state) {
        driver.executeScript("Object.defineProperty(document, 'visibilityState', {configurable: true, get: () => '"
                + state + "'}); document.dispatchEvent(new Event('visibilitychange'));");
    }

    /** How many requests to the JSON views this page has made so far. */
    private static long liveRequests() {
        return (Long) driver.executeScript("return performance.getEntriesByType('resource')"
                + ".filter(e => e.name.indexOf('/live/') >= 0).length");
    }

    /** The seconds the live line says have passed since the page last heard from the server. */
    private static long liveAgeSeconds() {
        Matcher age = LIVE_AGE.matcher(text("#live-status"));
        if (!age.find()) {
            throw new IllegalStateException("no age in the live line: " + text("#live-status"));
        }
        return Long.parseLong(age.group(1));
    }


    @Test
    void searchFindsByTargetPolicyIdAndEngineKeyAndPagesBothWays() {
        UUID special = WebSeed.ingest(APP, ingest, withPolicy(WebSeed.report(ORG, "engine-77-search",
                "vault.read_secret"), "pol-unit-9031")).get(0);

        driver.get(url("/"));
        search("github.");
        List<WebElement> rows = rows();
        assertThat(rows).hasSize(5).allSatisfy(r -> assertThat(r.getText()).contains("github.delete_repo_"));
        assertThat(driver.findElement(By.id("q")).getAttribute("value")).isEqualTo("github.");
        browser.screenshot("inbox-search");

        search("pol-unit-90");
        assertThat(rows()).hasSize(1).first().satisfies(r -> assertThat(r.getText()).contains("vault.read_secret"));
        search("engine-77");
        assertThat(rows()).hasSize(1).first().satisfies(r -> assertThat(r.getAttribute("data-id"))
                .isEqualTo(special.toString()));
        // A search matches in any case and inside a key, not only at its start.
        search("READ_SECRET");
        assertThat(rows()).hasSize(1).first().satisfies(r -> assertThat(r.getAttribute("data-id"))
                .isEqualTo(special.toString()));
        search("no-such-rule");
        assertThat(text(".empty")).contains("No conflicts match");

        // The action filter, with the search emptied.
        driver.findElement(By.id("q")).clear();
        new Select(driver.findElement(By.id("action"))).selectByValue("data_export");
        driver.findElement(By.cssSelector("form.filters button")).click();
        waitFor(ExpectedConditions.urlContains("action=data_export"));
        assertThat(text(".empty")).contains("No conflicts match");

        // Older, then Newer, back to the same first page.
        driver.get(url("/"));
        List<String> first = ids();
        assertThat(first).hasSize(InboxResource.PAGE_SIZE);
        assertThat(driver.findElements(By.linkText("‹ Newer"))).isEmpty();
        driver.findElement(By.linkText("Older »")).click();
        waitFor(ExpectedConditions.urlContains("after="));
        List<String> second = ids();
        assertThat(second).isNotEmpty().doesNotContainAnyElementsOf(first);
        driver.findElement(By.linkText("‹ Newer")).click();
        waitFor(ExpectedConditions.urlContains("before="));
        assertThat(ids()).isEqualTo(first);

        // Oldest first: the conflicts seeded before any test, and the way on is "Newer".
        new Select(driver.findElement(By.id("sort"))).selectByValue("oldest");
        driver.findElement(By.cssSelector("form.filters button")).click();
        waitFor(ExpectedConditions.urlContains("sort=oldest"));
        assertThat(rows()).hasSize(InboxResource.PAGE_SIZE).allSatisfy(r -> assertThat(
                r.findElement(By.cssSelector("td.target")).getText()).matches("[a-z]+\\.[a-z_]+_\\d+"));
        driver.findElement(By.linkText("Newer »")).click();
        waitFor(ExpectedConditions.urlContains("after="));
        assertThat(driver.getCurrentUrl()).contains("sort=oldest");
        assertThat(driver.findElements(By.linkText("‹ Older"))).hasSize(1);
    }

    @Test
    void eachBulkActionSaysWhatChangedAndWhatWasRefusedAndWhy() {
        UUID a1 = WebSeed.one(APP, ingest, ORG, "bulk-a1", "bulkack.one");
        UUID a2 = WebSeed.one(APP, ingest, ORG, "bulk-a2", "bulkack.two");
        UUID done = WebSeed.one(APP, ingest, ORG, "bulk-done", "bulkack.done");
        assertThat(APP.post(admin, "/v1/conflicts/" + done + "/resolve", "{\"resolution\": \"manual\"}").statusCode())
                .isEqualTo(200);
        long ackEvents = Seed.eventCount(superuser);

        driver.get(url("/?q=bulkack.&inbox_status=all"));
        bulk("acknowledge", null, "selected", a1, a2, done);
        assertThat(text("#bulk-heading")).isEqualTo("Acknowledge: 2 changed, 1 refused");
        assertThat(text(".bulk-changed")).contains("bulkack.one").contains("bulkack.two");
        assertThat(text(".bulk-refused")).contains("bulkack.done").contains("already resolved");
        assertThat(Seed.eventCount(superuser) - ackEvents).as("one event per change").isEqualTo(2);
        browser.screenshot("bulk-summary");

        // Resolve as manual, with one note: the already resolved one is refused, its resolution final.
        driver.get(url("/?q=bulkack.&inbox_status=all"));
        bulk("resolve_manual", "narrowed by hand in the engine", "selected", a1, done);
        assertThat(text("#bulk-heading")).isEqualTo("Resolve as manual: 1 changed, 1 refused");
        assertThat(text(".bulk-refused")).contains("already resolved as manual");
        assertThat(note(a1)).isEqualTo("narrowed by hand in the engine");

        // Resolve as rejected, on every conflict the search matches: a2 changes, the two resolved ones are refused.
        driver.get(url("/?q=bulkack.&inbox_status=all"));
        bulk("resolve_rejected", null, "matching");
        assertThat(text("#bulk-heading")).isEqualTo("Resolve as rejected: 1 changed, 2 refused");
        assertThat(text(".bulk-changed")).contains("bulkack.two");
        assertThat(text(".bulk-refused")).contains("a resolution is final");

        // Try again: only the failed one is retryable.
        UUID failed = WebSeed.one(APP, ingest, ORG, "bulk-failed", "bulkretry.failed");
        WebSeed.failed(superuser, failed, "invalid_json");
        UUID merged = WebSeed.one(APP, ingest, ORG, "bulk-merged", "bulkretry.merged");
        WebSeed.synthesized(superuser, merged, WebSeed.merge(merged, ORG, "bulkretry.merged", "Org rule wins."));
        driver.get(url("/?q=bulkretry."));
        bulk("retry", null, "selected", failed, merged);
        assertThat(text("#bulk-heading")).isEqualTo("Try again: 1 changed, 1 refused");
        assertThat(text(".bulk-refused")).contains("bulkretry.merged").contains("not retryable")
                .contains("merge ready");
        String state = superuser.withHandle(h -> h.createQuery(
                "SELECT synthesis_state FROM policy_conflicts WHERE id = :id").bind("id", failed).mapTo(String.class).one());
        assertThat(state).isEqualTo("pending");

        // Nothing ticked: nothing done, and said so.
        driver.get(url("/?q=bulkretry."));
        driver.findElement(By.cssSelector("#bulk button[value=selected]")).click();
        waitFor(ExpectedConditions.titleContains("Bulk action"));
        assertThat(text("p.notice.problem")).contains("no conflict was selected");
    }

    @Test
    void aMergeReadsRuleByRuleWithLowConfidenceFlaggedAndWhatAcceptingDoes() {
        UUID id = WebSeed.ingest(APP, ingest, withPolicy(WebSeed.report(ORG, "diff-1", "jira.create_issue"),
                "pol-ou-5")).get(0);
        ObjectNode merge = (ObjectNode) Seed.parse(WebSeed.merge(id, ORG, "jira.create_issue", "The org rule wins."));
        merge.withArray("loser_actions").addObject().put("policy_id", "pol-ou-5").put("action", "narrow")
                .put("detail", "allow jira.view_issue only");
        merge.put("confidence", 0.55);
        WebSeed.synthesized(superuser, id, merge.toString());

        driver.get(url("/conflicts/" + id));
        List<WebElement> diff = driver.findElements(By.cssSelector("table.rule-diff tbody tr"));
        // The merged rule is the winner word for word: one row says so, and no second row repeats it as new.
        assertThat(diff).hasSize(3);
        assertThat(diff.get(0).getText()).contains("= kept").contains("pol-org-17").contains("deny on jira.*")
                .contains("the merged rule, unchanged");
        assertThat(diff).noneMatch(row -> row.getText().contains("+ merged"));
        assertThat(diff.get(1).getText()).contains("− removed").contains("pol-mbr-42")
                .contains("allow on jira.create_issue").contains("fully shadowed by pol-org-17");
        assertThat(diff.get(2).getText()).contains("~ narrowed").contains("pol-ou-5")
                .contains("narrowed to: allow jira.view_issue only");
        // Readable without colour: each row's change is a word, not only a class.
        for (WebElement row : diff) {
            assertThat(row.findElement(By.tagName("strong")).getText()).isIn("kept", "removed", "narrowed", "merged");
        }
        assertThat(text(".low-confidence")).contains("Low confidence").contains("0.55").contains("0.70");
        assertThat(text(".accept-explained")).contains("records your decision").contains("conflict_resolved")
                .contains("policy engine applies it by reading the event stream");
        driver.executeScript("document.getElementById('merge-heading').scrollIntoView()");
        browser.screenshot("conflict-diff");

        // Above the threshold, no flag.
        UUID sure = WebSeed.one(APP, ingest, ORG, "diff-2", "jira.create_issue");
        WebSeed.synthesized(superuser, sure, WebSeed.merge(sure, ORG, "jira.create_issue", "The org rule wins."));
        driver.get(url("/conflicts/" + sure));
        assertThat(driver.findElements(By.cssSelector(".low-confidence"))).isEmpty();
        assertThat(driver.findElements(By.cssSelector("table.rule-diff tbody tr"))).hasSize(2);

        // A merged rule that differs from the winner is listed on its own row, as new.
        UUID rewritten = WebSeed.one(APP, ingest, ORG, "diff-3", "jira.create_issue");
        ObjectNode narrower = (ObjectNode) Seed.parse(WebSeed.merge(rewritten, ORG, "jira.create_issue", "Narrower."));
        narrower.with("merged_rule").put("target", "jira.create_issue");
        WebSeed.synthesized(superuser, rewritten, narrower.toString());
        driver.get(url("/conflicts/" + rewritten));
        List<WebElement> rows = driver.findElements(By.cssSelector("table.rule-diff tbody tr"));
        assertThat(rows.get(0).getText()).contains("~ rewritten");
        assertThat(rows.get(rows.size() - 1).getText()).contains("+ merged").contains("from pol-org-17")
                .contains("deny on jira.create_issue (org " + ORG + ")");
    }

    @Test
    void aPlatformDefaultWithNoLoserShowsItsRuleOnceNotAsKeptAndNew() {
        ObjectNode report = (ObjectNode) Seed.parse(WebSeed.report(ORG, "no-loser-1", "kb.search"));
        report.put("action", "knowledge_query");
        report.remove("rules");
        report.putArray("rules").addObject().put("policy_id", "pol-plat-1").put("scope", "platform")
                .putNull("scope_id").put("effect", "require_approval").put("target", "*");
        report.put("winner_policy_id", "pol-plat-1");
        UUID id = WebSeed.ingest(APP, ingest, report.toString()).get(0);
        ObjectNode merge = (ObjectNode) Seed.parse(WebSeed.merge(id, ORG, "kb.search", "Nothing was lost."));
        merge.putObject("winner").put("policy_id", "pol-plat-1").put("scope", "platform")
                .put("effect", "require_approval").put("target", "*");
        merge.putArray("losers");
        merge.putArray("loser_actions");
        merge.put("resolved_effect", "require_approval");
        merge.putObject("merged_rule").put("scope", "platform").putNull("scope_id")
                .put("effect", "require_approval").put("target", "*").put("based_on_policy_id", "pol-plat-1");
        WebSeed.synthesized(superuser, id, merge.toString());

        driver.get(url("/conflicts/" + id));
        List<WebElement> diff = driver.findElements(By.cssSelector("table.rule-diff tbody tr"));
        assertThat(diff).hasSize(1);
        assertThat(diff.get(0).getText()).contains("= kept").contains("pol-plat-1")
                .contains("require_approval on * (platform)").contains("the merged rule, unchanged")
                .doesNotContain("(new)");
    }

    @Test
    void theJsonViewsKeepToTheSessionsOrg() {
        UUID theirs = WebSeed.one(APP, APP.token(Role.INGEST, OTHER_ORG), OTHER_ORG, "other-1", "other.secret_target");
        driver.get(url("/live/conflicts/" + theirs));
        assertThat(driver.findElement(By.tagName("body")).getText()).contains("no such conflict")
                .doesNotContain("other.secret_target");
        driver.get(url("/live/inbox?q=other."));
        assertThat(driver.findElement(By.tagName("body")).getText()).contains("\"conflicts\":[]");
        driver.manage().deleteAllCookies();
        driver.get(url("/live/inbox"));
        assertThat(driver.findElement(By.tagName("body")).getText()).contains("signed out");
    }

    /** A report with one more rule, an org unit's, that allows its target's family. */
    private static String withPolicy(String report, String policyId) {
        ObjectNode r = (ObjectNode) Seed.parse(report);
        String target = r.get("target").asText();
        r.withArray("rules").addObject().put("policy_id", policyId).put("scope", "org_unit").put("scope_id", "unit-3")
                .put("effect", "allow").put("target", WebSeed.family(target));
        return r.toString();
    }

    private static void search(String text) {
        WebElement q = driver.findElement(By.id("q"));
        q.clear();
        q.sendKeys(text);
        String before = driver.getCurrentUrl();
        driver.findElement(By.cssSelector("form.filters button")).click();
        waitFor(d -> !d.getCurrentUrl().equals(before));
    }

    private static void bulk(String operation, String note, String scope, UUID... ids) {
        for (UUID id : ids) {
            driver.findElement(By.cssSelector("tr[data-id='" + id + "'] input[type=checkbox]")).click();
        }
        new Select(driver.findElement(By.id("operation"))).selectByValue(operation);
        if (note != null) {
            driver.findElement(By.id("bulk-note")).sendKeys(note);
        }
        driver.findElement(By.cssSelector("#bulk button[value=" + scope + "]")).click();
        if (scope.equals("matching")) {
            // Every match is asked about once more; declining first sends nothing.
            waitFor(ExpectedConditions.alertIsPresent());
            driver.switchTo().alert().dismiss();
            assertThat(driver.findElements(By.id("bulk-heading"))).isEmpty();
            driver.findElement(By.cssSelector("#bulk button[value=" + scope + "]")).click();
            waitFor(ExpectedConditions.alertIsPresent());
            driver.switchTo().alert().accept();
        }
        waitFor(ExpectedConditions.presenceOfElementLocated(By.id("bulk-heading")));
    }

    private static String note(UUID id) {
        return superuser.withHandle(h -> h.createQuery("SELECT resolution_note FROM policy_conflicts WHERE id = :id")
                .bind("id", id).mapTo(String.class).one());
    }

    private static List<WebElement> rows() {
        return driver.findElements(By.cssSelector("table.conflicts tbody tr"));
    }

    private static List<String> ids() {
        return rows().stream().map(r -> r.getAttribute("data-id")).toList();
    }

    private static String text(String css) {
        return driver.findElement(By.cssSelector(css)).getText();
    }

    /** Polls for up to 15 s: a live update comes within one poll interval. Transient driver errors read again. */
    private static void waitFor(ExpectedCondition<?> condition) {
        new WebDriverWait(driver, Duration.ofSeconds(15)).ignoring(WebDriverException.class).until(condition);
    }

    static String url(String path) {
        return APP.uri(path).toString();
    }
}
