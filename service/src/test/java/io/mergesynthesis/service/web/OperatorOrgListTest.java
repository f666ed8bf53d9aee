package io.mergesynthesis.service.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.TestApp;
import io.mergesynthesis.service.testing.WebPages;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The operator's org list with a thousand orgs: a page holds a fixed number and stays light, Next walks through
 * every org exactly once, and a search by the first letters of a name (any case) or of an id finds exactly the
 * orgs it should.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class OperatorOrgListTest {

    static final int ORGS = 1_000;
    /** The page weight the operator page is held to, HTML alone (the stylesheet and script are shared and cached). */
    static final int MOST_BYTES = 50 * 1024;
    static final TestApp APP = TestApp.apiOnly();
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();
    static final Pattern ROW_ORG = Pattern.compile("<a class=\"org-page\" href=\"/operator/orgs/([0-9a-f-]{36})\"");
    static final Pattern NEXT = Pattern.compile("href=\"(/operator\\?from=\\d+[^\"]*)\" rel=\"next\"");

    static ManyOrgs.Seeded seeded;
    static WebPages pages;

    @BeforeAll
    static void seed() {
        seeded = ManyOrgs.seed(APP.database().jdbi(), ORGS);
        pages = WebPages.signIn(APP, APP.token(Role.PLATFORM, null));
    }

    @Test
    void aPageHoldsAFixedNumberOfOrgsAndNextWalksThroughEveryOrgOnce() {
        String first = pages.page("/operator");
        assertThat(first.getBytes(StandardCharsets.UTF_8).length).isLessThan(MOST_BYTES);
        assertThat(orgsOn(first)).hasSize(OperatorResource.ORGS_PER_PAGE);
        // Costliest first: the org of the largest call heads the list.
        int costliest = (ORGS - 1) / 3 * 3;
        assertThat(orgsOn(first).get(0)).isEqualTo(seeded.orgs().get(costliest));

        List<UUID> walked = new ArrayList<>();
        String page = first;
        int pagesSeen = 1;
        while (true) {
            walked.addAll(orgsOn(page));
            Matcher next = NEXT.matcher(page);
            if (!next.find()) {
                break;
            }
            page = pages.page(next.group(1).replace("&amp;", "&"));
            pagesSeen++;
        }
        assertThat(pagesSeen).isEqualTo((ORGS + OperatorResource.ORGS_PER_PAGE - 1) / OperatorResource.ORGS_PER_PAGE);
        assertThat(walked).hasSize(ORGS).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(seeded.orgs());
    }

    @Test
    void aSearchFindsExactlyTheOrgsWhoseNameOrIdStartsWithIt() {
        Random random = new Random(41);
        for (int run = 0; run < 25; run++) {
            String prefix = switch (run % 3) {
                // A name's first letters, in another case.
                case 0 -> "oRG 0" + random.nextInt(10) + random.nextInt(10);
                // An id's first characters.
                case 1 -> seeded.orgs().get(random.nextInt(ORGS)).toString().substring(0, 3 + random.nextInt(4));
                // LIKE's own wildcards are taken literally: they match nothing here.
                default -> random.nextBoolean() ? "Org_0" : "%";
            };
            Set<UUID> expected = new HashSet<>();
            for (int i = 0; i < ORGS; i++) {
                String name = seeded.names().get(i);
                String lower = prefix.toLowerCase();
                if (name != null && name.toLowerCase().startsWith(lower)
                        || seeded.orgs().get(i).toString().startsWith(lower)) {
                    expected.add(seeded.orgs().get(i));
                }
            }
            Set<UUID> found = new HashSet<>();
            String page = pages.page("/operator?q=" + URLEncoder.encode(prefix, StandardCharsets.UTF_8));
            while (true) {
                found.addAll(orgsOn(page));
                Matcher next = NEXT.matcher(page);
                if (!next.find()) {
                    break;
                }
                assertThat(next.group(1)).contains("q=");
                page = pages.page(next.group(1).replace("&amp;", "&"));
            }
            assertThat(found).as("search %s", prefix).isEqualTo(expected);
        }
    }

    private static List<UUID> orgsOn(String page) {
        List<UUID> orgs = new ArrayList<>();
        Matcher m = ROW_ORG.matcher(page);
        while (m.find()) {
            orgs.add(UUID.fromString(m.group(1)));
        }
        return orgs;
    }
}
