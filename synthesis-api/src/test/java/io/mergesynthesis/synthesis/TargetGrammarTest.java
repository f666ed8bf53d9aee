package io.mergesynthesis.synthesis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The grammar docs/api.md documents, written a second way (as a regular expression), accepts exactly what
 * {@link TargetPattern#problem(String)} accepts, over many generated near misses; and one character from
 * outside the alphabet spoils any target wherever it lands. The seed is fixed so that a failure repeats.
 */
class TargetGrammarTest {

    private static final Pattern DOCUMENTED = Pattern.compile(
            "\\*|[A-Za-z0-9_\\-:/@]+(\\.[A-Za-z0-9_\\-:/@]+)*(\\.\\*)?");
    private static final String NAME_CHARACTERS = "abcXYZ019_-:/@";
    private static final String NEAR_MISS_CHARACTERS = "ab9_-:/@..**\"'{} <>;\\\u00e4\u00a0\u202e";
    private static final char[] FOREIGN = {' ', '\t', '"', '\'', '`', '{', '}', '[', ']', '<', '>', ';', ',', '=',
            '\\', '*', '\u00e4', '\u00a0', '\u202e', '\n'};

    private final Random random = new Random(27);

    @Test
    void problemAgreesWithTheDocumentedGrammar() {
        int accepted = 0;
        for (int i = 0; i < 20_000; i++) {
            String candidate = switch (i % 3) {
                case 0 -> randomString(NEAR_MISS_CHARACTERS, 10);
                case 1 -> target() + randomString(NEAR_MISS_CHARACTERS, 3);
                default -> target();
            };
            boolean documented = DOCUMENTED.matcher(candidate).matches();
            assertThat(TargetPattern.problem(candidate) == null).as("%s", candidate).isEqualTo(documented);
            accepted += documented ? 1 : 0;
        }
        // Both sides of the line were exercised, not only one.
        assertThat(accepted).isBetween(5_000, 15_000);
    }

    @Test
    void oneForeignCharacterAnywhereSpoilsATarget() {
        for (int i = 0; i < 5_000; i++) {
            String target = target();
            int at = random.nextInt(target.length() + 1);
            char inserted = FOREIGN[random.nextInt(FOREIGN.length)];
            String spoiled = target.substring(0, at) + inserted + target.substring(at);
            assertThat(TargetPattern.problem(spoiled)).as("%s", spoiled).isNotNull();
        }
    }

    @Test
    void everyTargetCoversItselfAndIsCoveredByTheWildcard() {
        for (int i = 0; i < 2_000; i++) {
            String target = target();
            assertThat(TargetPattern.covers(target, target)).as(target).isTrue();
            assertThat(TargetPattern.covers("*", target)).as(target).isTrue();
        }
    }

    /** A well-formed target: the wildcard, a name, or a name's family. */
    private String target() {
        int form = random.nextInt(5);
        if (form == 0) {
            return "*";
        }
        StringBuilder name = new StringBuilder(randomString(NAME_CHARACTERS, 1, 6));
        for (int segments = random.nextInt(4); segments > 0; segments--) {
            name.append('.').append(randomString(NAME_CHARACTERS, 1, 6));
        }
        return form < 3 ? name.toString() : name + ".*";
    }

    private String randomString(String alphabet, int maxLength) {
        return randomString(alphabet, 0, maxLength);
    }

    private String randomString(String alphabet, int minLength, int maxLength) {
        int length = minLength + random.nextInt(maxLength - minLength + 1);
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            text.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return text.toString();
    }
}
