package io.mergesynthesis.synthesis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TargetPatternTest {

    @ParameterizedTest(name = "{0} covers {1}: {2}")
    @CsvSource({
            // the wildcard covers everything, itself included
            "*,                 *,                  true",
            "*,                 jira.*,             true",
            "*,                 jira.create_issue,  true",
            // nothing but the wildcard covers the wildcard
            "jira.*,            *,                  false",
            "jira.create_issue, *,                  false",
            // a prefix pattern covers names and narrower prefixes under it
            "jira.*,            jira.*,             true",
            "jira.*,            jira.create_issue,  true",
            "jira.*,            jira.admin.*,       true",
            "jira.admin.*,      jira.*,             false",
            "jira.admin.*,      jira.create_issue,  false",
            // the dot is part of the prefix: no match on a longer word or on the bare stem
            "jira.*,            jiraffe.feed,       false",
            "jira.*,            jira,               false",
            "jira.*,            confluence.*,       false",
            // an exact name covers only itself
            "jira.create_issue, jira.create_issue,  true",
            "jira.create_issue, jira.*,             false",
            "jira.create_issue, jira.delete_issue,  false",
    })
    void covers(String outer, String inner, boolean expected) {
        assertThat(TargetPattern.covers(outer, inner)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} strictly covers {1}: {2}")
    @CsvSource({
            "*,                 jira.create_issue,  true",
            "*,                 jira.*,             true",
            "jira.*,            jira.create_issue,  true",
            "*,                 *,                  false",
            "jira.*,            jira.*,             false",
            "jira.create_issue, jira.create_issue,  false",
            "jira.create_issue, *,                  false",
    })
    void strictlyCovers(String outer, String inner, boolean expected) {
        assertThat(TargetPattern.strictlyCovers(outer, inner)).isEqualTo(expected);
    }

    @Test
    void twoTargetsThatShareANameAreNested() {
        // The stub's "targets do not overlap" detail is only honest if partial overlap cannot happen.
        List<String> targets = List.of("*", "jira.*", "jira.admin.*", "jira", "jira.create_issue",
                "jira.admin.purge", "confluence.*", "confluence.search");
        List<String> names = List.of("jira", "jira.create_issue", "jira.admin.purge", "jira.admin.x",
                "confluence.search", "slack.post");
        for (String a : targets) {
            for (String b : targets) {
                boolean shareAName = names.stream()
                        .anyMatch(n -> TargetPattern.covers(a, n) && TargetPattern.covers(b, n));
                boolean nested = TargetPattern.covers(a, b) || TargetPattern.covers(b, a);
                assertThat(!shareAName || nested).as("%s and %s", a, b).isTrue();
            }
        }
    }
}
