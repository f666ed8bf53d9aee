package io.mergesynthesis.service.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.testing.TestDatabase;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The code's one list of each state's words is the database's: read from the domain's CHECK on the migrated
 * schema, so a migration that adds a word fails here until the enum has it too (and the web shows it).
 */
class StateWordsMatchSchemaTest {

    private static Jdbi superuser;

    @BeforeAll
    static void schema() {
        superuser = TestDatabase.fresh().jdbi();
    }

    @Test
    void synthesisStatesAreTheDomainsWordsInItsOrder() {
        assertThat(wireNames(SynthesisState.values(), SynthesisState::wireName))
                .containsExactlyElementsOf(domainWords("synthesis_state"));
    }

    @Test
    void inboxStatusesAreTheDomainsWords() {
        assertThat(wireNames(InboxStatus.values(), InboxStatus::wireName))
                .containsExactlyElementsOf(domainWords("inbox_status"));
    }

    @Test
    void resolutionsAreTheDomainsWords() {
        assertThat(wireNames(Resolution.values(), Resolution::wireName))
                .containsExactlyElementsOf(domainWords("resolution"));
    }

    @Test
    void everyColumnThatHoldsAStateUsesItsDomain() {
        List<String> types = superuser.withHandle(h -> h.createQuery("""
                        SELECT column_name || ':' || domain_name FROM information_schema.columns
                         WHERE table_name = 'policy_conflicts'
                           AND column_name IN ('synthesis_state', 'inbox_status', 'resolution')
                         ORDER BY column_name""")
                .mapTo(String.class).list());
        assertThat(types).containsExactly("inbox_status:inbox_status", "resolution:resolution",
                "synthesis_state:synthesis_state");
    }

    @Test
    void everyStateHasALabelAPersonCanRead() {
        for (SynthesisState state : SynthesisState.values()) {
            assertThat(state.label()).as(state.wireName()).isNotBlank().doesNotContain("_");
        }
        assertThat(SynthesisState.NOT_NEEDED.label()).isEqualTo("not needed");
    }

    private static <E> List<String> wireNames(E[] values, java.util.function.Function<E, String> wireName) {
        return Arrays.stream(values).map(wireName).toList();
    }

    /** The quoted words of the domain's one CHECK constraint, in the order it lists them. */
    private static List<String> domainWords(String domain) {
        String check = superuser.withHandle(h -> h.createQuery("""
                        SELECT pg_get_constraintdef(c.oid) FROM pg_constraint c
                         WHERE c.contypid = CAST(:domain AS regtype) AND c.contype = 'c'""")
                .bind("domain", domain)
                .mapTo(String.class).one());
        Matcher word = Pattern.compile("'([a-z_]+)'").matcher(check);
        List<String> words = new java.util.ArrayList<>();
        while (word.find()) {
            words.add(word.group(1));
        }
        assertThat(words).as("words in " + check).isNotEmpty();
        return words;
    }
}
