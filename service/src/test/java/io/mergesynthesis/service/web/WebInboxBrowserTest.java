package io.mergesynthesis.service.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.TestApp;
import io.mergesynthesis.synthesis.MergeCheck;
import io.mergesynthesis.synthesis.MergeFinding;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.Cookie;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;

/**
 * The web inbox as people use it, in headless Chromium: one application and one browser for the whole class, and
 * data that each test leaves for the others to ignore (every test works on conflicts of its own).
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class WebInboxBrowserTest {

    /** Two configured models, usable here (their providers have keys), so the operator page has models to choose. */
    static final TestApp APP = TestApp.create(
            io.dropwizard.testing.ConfigOverride.config("synthesis.enabled", "false"),
            io.dropwizard.testing.ConfigOverride.config("llm.providers.anthropic.type", "anthropic"),
            io.dropwizard.testing.ConfigOverride.config("llm.providers.anthropic.baseUrl", "http://127.0.0.1:9/"),
            io.dropwizard.testing.ConfigOverride.config("llm.providers.anthropic.apiKey", "unused"),
            io.dropwizard.testing.ConfigOverride.config("llm.providers.openai.type", "openai"),
            io.dropwizard.testing.ConfigOverride.config("llm.providers.openai.baseUrl", "http://127.0.0.1:9/v1"),
            io.dropwizard.testing.ConfigOverride.config("llm.providers.openai.apiKey", "unused"),
            io.dropwizard.testing.ConfigOverride.config("llm.models.anthropic/model-large.inputPerMillionUsd", "3"),
            io.dropwizard.testing.ConfigOverride.config("llm.models.anthropic/model-large.outputPerMillionUsd", "15"),
            io.dropwizard.testing.ConfigOverride.config("llm.models.openai/model-small.inputPerMillionUsd", "0.4"),
            io.dropwizard.testing.ConfigOverride.config("llm.models.openai/model-small.outputPerMillionUsd", "1.6"));
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    // Fixed ids keep the screenshots the same from run to run.
    static final UUID ORG_A = UUID.fromString("66149ad9-b0fe-4981-b3a0-ea0d94e58b4f");
    static final UUID ORG_B = UUID.fromString("24a14d13-e8ef-4c71-8bde-36c29c0aa912");
    static final String MARKUP = "<img src=x onerror=alert(1)>";
    static final int FILLERS = 30;
    static final String[] TARGETS = {"github.delete_repo", "jira.create_issue", "slack.post_message",
            "crm.export_contacts", "kb.search", "drive.share_file", "calendar.create_event", "s3.get_object"};

    static Browser browser;
    static ChromeDriver driver;
    static Jdbi superuser;
    static String platform;
    static String adminA;
    static String adminA2;
    static String adminB;
    static List<UUID> fillers;
    static UUID withMerge;
    static UUID failed;
    static UUID waiting;
    static UUID markup;
    static UUID race;
    static UUID toResolve;
    static UUID ofB;
    static UUID toRetry;
    static UUID unchecked;
    static UUID memberWins;

    @BeforeAll
    static void seed() {
        superuser = APP.database().jdbi();
        platform = APP.token(Role.PLATFORM, null);
        adminA = APP.token(Role.ORG_ADMIN, ORG_A);
        adminA2 = APP.token(Role.ORG_ADMIN, ORG_A);
        adminB = APP.token(Role.ORG_ADMIN, ORG_B);
        List<String> reports = new ArrayList<>();
        for (int i = 0; i < FILLERS; i++) {
            reports.add(WebSeed.report(ORG_A, "filler-" + i, TARGETS[i % TARGETS.length] + (i < 8 ? "" : "_" + i)));
        }
        fillers = WebSeed.ingest(APP, platform, WebSeed.batch(reports));
        for (int i = 0; i < FILLERS; i++) {
            UUID id = fillers.get(i);
            if (i % 3 != 0) {
                WebSeed.synthesized(superuser, id, WebSeed.merge(id, ORG_A, "x.y", "The org rule wins."));
            }
        }
        WebSeed.state(superuser, fillers.get(3), "in_progress");
        toResolve = WebSeed.one(APP, platform, ORG_A, "to-resolve", "drive.share_file");
        WebSeed.synthesized(superuser, toResolve, WebSeed.merge(toResolve, ORG_A, "drive.share_file",
                "The org rule pol-org-17 denies drive.*; the member rule is shadowed."));
        race = WebSeed.one(APP, platform, ORG_A, "race", "slack.post_message");
        WebSeed.synthesized(superuser, race, WebSeed.merge(race, ORG_A, "slack.post_message", "Org rule wins."));
        waiting = WebSeed.one(APP, platform, ORG_A, "waiting", "kb.search");
        WebSeed.state(superuser, waiting, "waiting_budget");
        failed = WebSeed.one(APP, platform, ORG_A, "failed", "crm.export_contacts");
        WebSeed.failed(superuser, failed, "invalid_json");
        for (int attempt = 1; attempt <= 3; attempt++) {
            WebSeed.attempt(superuser, ORG_A, failed, attempt, attempt < 3 ? "transient_failure" : "permanent_failure",
                    "invalid_json", "loser_actions names pol-x, which is not a rule of this conflict");
            WebSeed.call(superuser, ORG_A, failed, attempt, "primary", "openai", "model-small", 900, 210, "0.0004",
                    "discarded");
        }
        markup = WebSeed.one(APP, platform, ORG_A, "markup", "markup");
        WebSeed.retarget(superuser, markup, MARKUP);
        WebSeed.synthesized(superuser, markup, WebSeed.merge(markup, ORG_A, MARKUP,
                "<script>alert(2)</script> is what the engine sent as a target."));
        withMerge = WebSeed.one(APP, platform, ORG_A, "with-merge", "jira.create_issue");
        WebSeed.attempt(superuser, ORG_A, withMerge, 1, "transient_failure", "synthesizer", "provider answered 503");
        WebSeed.call(superuser, ORG_A, withMerge, 2, "primary", "openai", "model-small", 1450, 380, "0.0009", "discarded");
        WebSeed.call(superuser, ORG_A, withMerge, 2, "escalation", "anthropic", "model-large", 1620, 512, "0.0125", "stored");
        WebSeed.synthesized(superuser, withMerge, WebSeed.merge(withMerge, ORG_A, "jira.create_issue",
                "The org rule pol-org-17 (deny on jira.*) wins over the member rule pol-mbr-42 (allow on "
                        + "jira.create_issue). Tool calls on jira.* stay denied; pol-mbr-42 is removed."));
        for (int i = 0; i < 6; i++) {
            WebSeed.call(superuser, ORG_A, fillers.get(i + 1), 1, "primary", "anthropic", "model-large", 1500, 450,
                    "0.0113", "stored");
        }
        WebSeed.budget(superuser, ORG_A, null, "0.05");
        ofB = WebSeed.one(APP, platform, ORG_B, "b-1", "ORG-B-SECRET.target");
        // Org B's, so that org A's counts and the operator's failures by reason stay as the other tests read them.
        toRetry = WebSeed.one(APP, platform, ORG_B, "b-retry", "crm.sync_accounts");
        WebSeed.failed(superuser, toRetry, "synthesizer");
        for (int attempt = 1; attempt <= 3; attempt++) {
            WebSeed.attempt(superuser, ORG_B, toRetry, attempt, attempt < 3 ? "transient_failure" : "permanent_failure",
                    "synthesizer", "provider answered 503");
        }
        // Org B's as well, for the same reason: a merge stored before the merge check existed, and a member rule
        // the engine chose over the org's.
        unchecked = WebSeed.one(APP, platform, ORG_B, "b-unchecked", "wiki.edit_page");
        WebSeed.synthesizedBeforeTheCheck(superuser, unchecked, WebSeed.merge(unchecked, ORG_B, "wiki.edit_page",
                "The org rule pol-org-17 denies wiki.*; the member rule is shadowed."));
        memberWins = WebSeed.ingest(APP, platform, WebSeed.memberWinsReport(ORG_B, "b-member-wins",
                "github.delete_repo")).get(0);
        WebSeed.synthesized(superuser, memberWins, WebSeed.memberWinsMerge(memberWins, ORG_B, "github.delete_repo"));
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
    void orgAdminSignsInFiltersPagesAndReadsAMerge() {
        driver.get(url("/"));
        assertThat(driver.getCurrentUrl()).endsWith("/sign-in");
        browser.screenshot("sign-in");
        signIn(adminA);
        assertThat(driver.getCurrentUrl()).isEqualTo(url("/"));
        assertThat(driver.getTitle()).startsWith("Inbox");
        // The session cookie is out of reach of page scripts.
        assertThat(driver.executeScript("return document.cookie")).isEqualTo("");
        browser.screenshot("inbox");

        List<WebElement> rows = driver.findElements(By.cssSelector("table.conflicts tbody tr"));
        assertThat(rows).hasSize(InboxResource.PAGE_SIZE);
        assertThat(rows.get(0).getText()).contains("jira.create_issue").contains("merge ready");
        assertThat(text("section.counts")).contains("failed 1").contains("waiting for budget 1");

        // Older, then back to the newest.
        driver.findElement(By.linkText("Older »")).click();
        wait(ExpectedConditions.urlContains("after="));
        List<WebElement> older = driver.findElements(By.cssSelector("table.conflicts tbody tr"));
        assertThat(older).hasSize(FILLERS + 6 - InboxResource.PAGE_SIZE);
        assertThat(driver.findElements(By.linkText("Older »"))).isEmpty();
        driver.findElement(By.linkText("« Newest")).click();
        wait(ExpectedConditions.not(ExpectedConditions.urlContains("after=")));
        assertThat(driver.findElements(By.cssSelector("table.conflicts tbody tr"))).hasSize(InboxResource.PAGE_SIZE);

        // Filter: only the failed conflict.
        new Select(driver.findElement(By.id("synthesis_state"))).selectByValue("max_attempts_exceeded");
        driver.findElement(By.cssSelector("form.filters button")).click();
        wait(ExpectedConditions.urlContains("synthesis_state=max_attempts_exceeded"));
        List<WebElement> filtered = driver.findElements(By.cssSelector("table.conflicts tbody tr"));
        assertThat(filtered).hasSize(1);
        assertThat(filtered.get(0).getText()).contains("crm.export_contacts").contains("failed");

        // A merge, before and after, with its provider calls and attempt history.
        open(withMerge);
        assertThat(text("#rules-heading + table")).contains("pol-org-17").contains("★ winner");
        String merge = text(".before-after");
        assertThat(merge).contains("Merged rule: org deny on jira.*").contains("pol-mbr-42")
                .contains("remove").contains("fully shadowed by pol-org-17");
        assertThat(driver.getPageSource()).contains("0.86").contains("anthropic/model-large");
        assertThat(text(".rationale")).contains("Tool calls on jira.* stay denied");
        // Every field of the merged rule, its owner too, and what the check proved of it, in words.
        assertThat(text("dl.merged-rule")).contains("Layer\norg").contains("Owner (scope id)\n" + ORG_A)
                .contains("Effect\ndeny").contains("Target\njira.*").contains("Based on\npol-org-17");
        assertThat(text("dl.facts .badge.checked")).isEqualTo("checked");
        String check = text(".check.passed");
        assertThat(check).contains("passed the merge check (version " + MergeCheck.VERSION + ")");
        for (MergeFinding.Property property : MergeFinding.Property.values()) {
            assertThat(check).contains(property.description());
        }
        assertThat(check).contains("proves the merge's structure")
                .contains("does not prove the rationale or the details, which are the model's own words");
        assertThat(driver.findElements(By.cssSelector(".notice.caution, .check.not-checked"))).isEmpty();
        assertThat(text("#calls-heading + table")).contains("escalation").contains("$0.0125").contains("1620");
        assertThat(text("#history-heading + table")).contains("synthesizer").contains("provider answered 503");
        WebElement time = driver.findElement(By.cssSelector("dl.facts time"));
        assertThat(time.getAttribute("title")).endsWith("UTC");
        browser.screenshot("conflict");
        driver.executeScript("document.getElementById('merge-heading').scrollIntoView()");
        browser.screenshot("conflict-checked");
    }

    @Test
    void orgAdminAcknowledgesAndResolves() {
        signIn(adminA);
        open(toResolve);
        driver.findElement(By.xpath("//button[text()='Acknowledge']")).click();
        wait(ExpectedConditions.urlContains("notice=acknowledged"));
        assertThat(text("p.notice")).isEqualTo("Acknowledged.");
        assertThat(text("dl.facts")).contains("acknowledged");

        driver.findElement(By.id("resolution-accepted_suggestion")).click();
        driver.findElement(By.id("note")).sendKeys("Applied as suggested; member rule removed.");
        driver.findElement(By.xpath("//button[text()='Resolve']")).click();
        wait(ExpectedConditions.urlContains("notice=resolved"));
        assertThat(text("p.notice")).isEqualTo("Resolved.");
        assertThat(text("p.resolution")).contains("accepted the suggestion");
        assertThat(text("blockquote.note")).isEqualTo("Applied as suggested; member rule removed.");
        assertThat(driver.findElements(By.cssSelector("form.resolve"))).isEmpty();

        // The inbox agrees, and so does the API.
        driver.get(url("/?inbox_status=resolved"));
        assertThat(text("table.conflicts tbody")).contains("drive.share_file");
        assertThat(APP.get(adminA, "/v1/conflicts/" + toResolve).body()).contains("\"accepted_suggestion\"");
    }

    @Test
    void aLostRaceIsShownPlainly() {
        signIn(adminA);
        open(race);
        driver.findElement(By.id("resolution-rejected_suggestion")).click();
        // Another admin of the org resolves it first, through the API.
        HttpResponse<String> first = APP.post(adminA2, "/v1/conflicts/" + race + "/resolve",
                "{\"resolution\": \"manual\", \"note\": \"fixed the rules by hand\"}");
        assertThat(first.statusCode()).isEqualTo(200);
        driver.findElement(By.xpath("//button[text()='Resolve']")).click();
        wait(ExpectedConditions.urlContains("notice=lost_race"));
        assertThat(text("p.notice")).contains("someone else resolved this conflict first");
        assertThat(text("p.resolution")).contains("fixed by hand");
        assertThat(text("blockquote.note")).isEqualTo("fixed the rules by hand");
        // The redirect lands on the decision, where the notice is.
        assertThat(driver.getCurrentUrl()).endsWith("#decision");
        browser.screenshot("conflict-lost-race");
    }

    @Test
    void markupFromAConflictIsShownAsTextAndRunsNothing() {
        signIn(adminA);
        driver.get(url("/"));
        assertThat(text("table.conflicts tbody")).contains(MARKUP);
        open(markup);
        assertNoAlert();
        assertThat(driver.findElement(By.cssSelector("h1 code.target")).getText()).isEqualTo(MARKUP);
        assertThat(text(".rationale")).isEqualTo("<script>alert(2)</script> is what the engine sent as a target.");
        assertThat(driver.findElements(By.cssSelector("main img"))).isEmpty();
        assertThat(driver.findElements(By.cssSelector("main script"))).isEmpty();
        // A note with markup, too.
        driver.findElement(By.id("resolution-manual")).click();
        driver.findElement(By.id("note")).sendKeys("<b onmouseover=alert(3)>bold</b>");
        driver.findElement(By.xpath("//button[text()='Resolve']")).click();
        wait(ExpectedConditions.urlContains("notice=resolved"));
        assertNoAlert();
        assertThat(text("blockquote.note")).isEqualTo("<b onmouseover=alert(3)>bold</b>");
        assertThat(driver.findElements(By.cssSelector("blockquote.note b"))).isEmpty();
    }

    @Test
    void theFailureMarkerAndWaitingForBudgetAreExplained() {
        signIn(adminA);
        open(failed);
        assertThat(text("#merge-heading + .notice")).contains("Synthesis failed for good")
                .contains("synthesis_max_attempts_exceeded").contains("invalid_json");
        assertThat(text("#history-heading + table")).contains("permanent_failure").contains("pol-x");
        browser.screenshot("conflict-failed");
        open(waiting);
        assertThat(text("#merge-heading + .notice")).contains("Waiting for budget").contains("raises the budget");
        // Accepting needs a suggestion; the choice is there but disabled.
        assertThat(driver.findElement(By.id("resolution-accepted_suggestion")).isEnabled()).isFalse();
    }

    @Test
    void anAdminTriesAMarkedConflictAgainAndSeesItPending() {
        signIn(adminB);
        open(toRetry);
        assertThat(text("#merge-heading + .notice")).contains("Synthesis failed for good").contains("synthesizer");
        driver.findElement(By.xpath("//button[text()='Try again']")).click();
        wait(ExpectedConditions.urlContains("notice=requeued"));
        assertThat(text("#merge-heading + p.notice")).startsWith("Queued again");
        assertThat(text("dl.facts")).contains("pending").contains("0 attempt(s)");
        assertThat(driver.findElements(By.xpath("//button[text()='Try again']"))).isEmpty();
        // What happened before stays on the page, with the re-queue's own line after it; the API agrees.
        var rows = driver.findElements(By.cssSelector("#history-heading + table tbody tr"));
        assertThat(rows).hasSize(3 + 1);
        assertThat(rows.get(3).getText()).contains("requeued").contains("re-queued by token")
                .contains("(role org_admin)");
        assertThat(APP.get(adminB, "/v1/conflicts/" + toRetry).body()).contains("\"state\":\"pending\"");
        browser.screenshot("conflict-requeued");
    }

    @Test
    void aMergeStoredBeforeTheCheckExistedIsFlaggedNotChecked() {
        signIn(adminB);
        open(unchecked);
        assertThat(text("dl.facts .badge.not-checked")).isEqualTo("not checked");
        String flag = text(".check.not-checked");
        assertThat(flag).startsWith("Not checked.").contains("stored before the merge check existed")
                .contains(MergeFinding.Property.GRANTS_NO_NEW_ACCESS.description());
        assertThat(driver.findElements(By.cssSelector(".check.passed, .badge.checked"))).isEmpty();
        assertThat(text("dl.merged-rule")).contains("Owner (scope id)\n" + ORG_B);
        // The screenshot shows the merge with its flag, below the rules.
        driver.executeScript("document.getElementById('merge-heading').scrollIntoView()");
        browser.screenshot("conflict-not-checked");
    }

    @Test
    void aWinnerOverAStrongerLayersRuleIsACautionNotARefusal() {
        signIn(adminB);
        open(memberWins);
        String caution = text("#rules-heading ~ .notice.caution");
        assertThat(caution).startsWith("Caution:")
                .contains("chose pol-mbr-42 (member rule: allow on github.delete_repo) over pol-org-17 (org rule:"
                        + " deny on github.*), although the org layer is stronger than the member layer");
        // The merge is there, checked, and may be accepted as any other.
        assertThat(text(".check.passed")).contains("passed the merge check");
        assertThat(text("dl.merged-rule")).contains("Layer\nmember").contains("Owner (scope id)\nmember-31")
                .contains("Based on\npol-mbr-42");
        assertThat(driver.findElement(By.id("resolution-accepted_suggestion")).isEnabled()).isTrue();
        browser.screenshot("conflict-caution");

        // The engine's usual order draws no caution.
        open(unchecked);
        assertThat(driver.findElements(By.cssSelector(".notice.caution"))).isEmpty();
    }

    @Test
    void usageShowsTheMonthsSpendAgainstTheBudget() {
        signIn(adminA);
        driver.findElement(By.linkText("Usage")).click();
        wait(ExpectedConditions.titleContains("Usage"));
        String facts = text("dl.facts");
        assertThat(facts).contains("Calls\n11").contains("$0.0824").contains("$0.05");
        assertThat(text("table.numbers tbody")).contains("anthropic/model-large").contains("openai/model-small");
        assertThat(driver.findElements(By.cssSelector("svg.chart rect.bar"))).hasSize(2);
        assertThat(driver.findElement(By.id("budget-used")).getAttribute("value")).isNotBlank();
        browser.screenshot("usage");
    }

    @Test
    void anotherOrgsConflictIsNotFoundLikeAMissingOne() {
        signIn(adminB);
        assertThat(text("table.conflicts tbody")).contains("ORG-B-SECRET.target").doesNotContain("jira");
        open(withMerge);
        String ofAnother = text("main");
        assertThat(ofAnother).contains("There is no such conflict").doesNotContain("jira");
        open(UUID.randomUUID());
        assertThat(text("main")).isEqualTo(ofAnother);
        driver.get(url("/conflicts/not-a-uuid"));
        assertThat(text("main")).isEqualTo(ofAnother);
        // Not through another org's id in any parameter either: the session's org is the only one read.
        driver.get(url("/?org_id=" + ORG_A));
        assertThat(text("table.conflicts tbody")).doesNotContain("jira");
    }

    @Test
    void platformChangesABudgetAndAModelAndViewsAnOrgReadOnly() {
        signIn(platform);
        assertThat(driver.getCurrentUrl()).isEqualTo(url("/operator"));
        assertThat(text("ul.tiles")).contains("failed").contains("waiting for budget");
        assertThat(text("#failures-heading + .two-col")).contains("invalid_json");
        WebElement rowA = driver.findElement(By.xpath("//tr[td/code[text()='" + ORG_A + "']]"));
        assertThat(rowA.getText()).contains("$0.0824").contains("budget reached");

        new Select(driver.findElement(By.id("model-" + ORG_B))).selectByValue("openai/model-small");
        WebElement budget = driver.findElement(By.id("budget-" + ORG_B));
        budget.clear();
        budget.sendKeys("12.5");
        driver.findElement(By.xpath("//tr[td/code[text()='" + ORG_B + "']]//button[text()='Save']")).click();
        wait(ExpectedConditions.urlContains("notice=settings_saved"));
        WebElement rowB = driver.findElement(By.xpath("//tr[td/code[text()='" + ORG_B + "']]"));
        assertThat(rowB.getText()).contains("$12.50").contains("openai/model-small");
        String stored = superuser.withHandle(h -> h.createQuery(
                        "SELECT model || ' ' || monthly_budget_usd FROM org_synthesis_settings WHERE org_id = :org")
                .bind("org", ORG_B).mapTo(String.class).one());
        assertThat(stored).isEqualTo("openai/model-small 12.500000");
        assertThat(new Select(driver.findElement(By.id("model-" + ORG_B))).getFirstSelectedOption().getAttribute("value"))
                .isEqualTo("openai/model-small");
        browser.screenshot("operator");

        // A negative budget is refused and changes nothing.
        budget = driver.findElement(By.id("budget-" + ORG_B));
        driver.executeScript("arguments[0].removeAttribute('min')", budget);
        budget.clear();
        budget.sendKeys("-1");
        driver.findElement(By.xpath("//tr[td/code[text()='" + ORG_B + "']]//button[text()='Save']")).click();
        wait(ExpectedConditions.urlContains("notice=invalid_budget"));
        assertThat(text("p.notice")).contains("0 or more");

        // A read-only look at org A's inbox.
        driver.findElement(By.xpath("//tr[td/code[text()='" + ORG_A + "']]//button[starts-with(., 'View inbox')]"))
                .click();
        wait(ExpectedConditions.urlToBe(url("/")));
        assertThat(text("header.top")).contains("read only");
        open(withMerge);
        assertThat(driver.findElements(By.cssSelector("form.resolve"))).isEmpty();
        assertThat(text("main")).contains("Read only");
    }

    @Test
    void signingOutEndsTheSession() {
        signIn(adminA);
        Cookie session = driver.manage().getCookieNamed(SessionCookies.SESSION);
        assertThat(session.isHttpOnly()).isTrue();
        assertThat(session.getSameSite()).isEqualTo("Lax");
        driver.findElement(By.xpath("//button[text()='Sign out']")).click();
        wait(ExpectedConditions.urlContains("/sign-in"));
        // The old cookie, put back by hand, opens nothing any more: in the browser, and for any client.
        driver.manage().addCookie(new Cookie.Builder(session.getName(), session.getValue()).path("/").build());
        driver.get(url("/"));
        assertThat(driver.getCurrentUrl()).endsWith("/sign-in");
        HttpResponse<String> replay = APP.send(HttpRequest.newBuilder(APP.uri("/"))
                .header("Cookie", SessionCookies.SESSION + "=" + session.getValue()).GET().build());
        assertThat(replay.statusCode()).isEqualTo(303);
        assertThat(replay.headers().firstValue("Location")).hasValueSatisfying(l -> assertThat(l).endsWith("/sign-in"));
    }

    @Test
    void otherRolesAreRefusedWithAPlainMessage() {
        driver.get(url("/sign-in"));
        driver.findElement(By.id("token")).sendKeys(APP.token(Role.INGEST, ORG_A));
        driver.findElement(By.cssSelector("form button")).click();
        // The answer is a new page: wait for it rather than read the one the click left.
        wait(ExpectedConditions.textToBePresentInElementLocated(By.id("sign-in-problem"), "ingest role"));
        assertThat(text("#sign-in-problem")).contains("ingest role").contains("cannot use the inbox");
        driver.findElement(By.id("token")).sendKeys("msk_not-a-token");
        driver.findElement(By.cssSelector("form button")).click();
        wait(ExpectedConditions.textToBePresentInElementLocated(By.id("sign-in-problem"), "not valid"));
        assertThat(text("#sign-in-problem")).contains("not valid");
        assertThat(driver.manage().getCookieNamed(SessionCookies.SESSION)).isNull();
    }

    private static void signIn(String token) {
        BrowserSteps.signIn(driver, APP, token);
    }

    private static void open(UUID conflict) {
        driver.get(url("/conflicts/" + conflict));
    }

    private static String text(String css) {
        return BrowserSteps.text(driver, css);
    }

    private static void assertNoAlert() {
        assertThatThrownBy(() -> driver.switchTo().alert()).isInstanceOf(NoAlertPresentException.class);
    }

    private static void wait(org.openqa.selenium.support.ui.ExpectedCondition<?> condition) {
        BrowserSteps.waitFor(driver, condition);
    }

    static String url(String path) {
        return APP.uri(path).toString();
    }
}
