package io.mergesynthesis.synthesis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

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

    @ParameterizedTest(name = "{0} is a target")
    @ValueSource(strings = {"*", "jira", "jira.*", "jira.create_issue", "jira.admin.*", "kb.finance.payroll",
            "ORG-B.tool_2", "arn:aws:s3/bucket@eu-west-1.*", "a.b.c.d.e"})
    void wellFormedTargetsHaveNoProblem(String target) {
        assertThat(TargetPattern.problem(target)).isNull();
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiter = '|', value = {
            "jira create_issue              | a space at position 5",
            "jira.\"x\"                      | a quote at position 6",
            "jira.{x}                       | a bracket or brace ({) at position 6",
            "<img>                          | a bracket or brace (<) at position 1",
            "jira.*.create                  | a * that is not the whole target nor its final .* at position 6",
            "*.*                            | a * that is not the whole target nor its final .* at position 1",
            "jira*                          | a * that is not the whole target nor its final .* at position 5",
            "**                             | a * that is not the whole target nor its final .* at position 1",
            "jira;drop                      | the character ; at position 5",
            "kb.gehälter                    | the character U+00E4 at position 7",
            ".*                             | an empty segment",
            "jira..*                        | an empty segment",
            ".jira                          | an empty segment",
            "jira.                          | an empty segment",
            "jira..x                        | an empty segment",
    })
    void targetsOutsideTheGrammarSayWhy(String target, String why) {
        assertThat(TargetPattern.problem(target)).contains(why);
    }

    @Test
    void aSpaceOrQuoteOfAnyKindIsNamed() {
        assertThat(TargetPattern.problem("jira.create_issue\u00a0")).isEqualTo("has a space at position 18");
        assertThat(TargetPattern.problem("jira.\tx")).isEqualTo("has a space at position 6");
        assertThat(TargetPattern.problem("jira.'x'")).isEqualTo("has a quote at position 6");
        assertThat(TargetPattern.problem("jira.`x`")).isEqualTo("has a quote at position 6");
    }

    @Test
    void emptyOrMissingIsNoTarget() {
        assertThat(TargetPattern.problem("")).isEqualTo("is empty");
        assertThat(TargetPattern.problem(null)).isEqualTo("is empty");
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
