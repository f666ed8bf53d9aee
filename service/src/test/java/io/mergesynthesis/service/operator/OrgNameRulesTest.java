package io.mergesynthesis.service.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mergesynthesis.service.core.OrgName;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The rules of a display name over many generated names (seeded, so a failure repeats): every name of 1 to 80
 * printable characters without an outer space is accepted unchanged; any control character, outer space or 81st
 * character gets it refused.
 */
class OrgNameRulesTest {

    private static final int RUNS = 2_000;
    /** Printable text from several scripts, an emoji (two UTF-16 units, one character) and inner spaces. */
    private static final int[] PRINTABLE = {'a', 'Z', '7', ' ', '<', '&', '"', 'é', 'ß', 'Ж', '中', 'ا', 0x1F600};
    private static final int[] CONTROLS = {0x00, 0x07, 0x09, 0x0A, 0x0D, 0x1B, 0x7F, 0x85, 0x9F, 0x2028, 0x2029};

    @Test
    void printableNamesUpToTheLimitAreAcceptedUnchanged() {
        Random random = new Random(29);
        for (int run = 0; run < RUNS; run++) {
            String name = printable(random, 1 + random.nextInt(OrgName.MAX_LENGTH));
            assertThat(new OrgName(name).text()).isEqualTo(name);
        }
    }

    @Test
    void aControlCharacterAnywhereIsRefused() {
        Random random = new Random(2029);
        for (int run = 0; run < RUNS; run++) {
            String name = printable(random, 1 + random.nextInt(OrgName.MAX_LENGTH - 2));
            int at = 1 + random.nextInt(name.length() - 1 + 1);
            int control = CONTROLS[random.nextInt(CONTROLS.length)];
            String bad = insertAt(name, at, control) + "x";
            assertThatThrownBy(() -> new OrgName(bad)).as("U+%04X in %s", control, bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageMatching("name must not contain (control characters|line or paragraph separators"
                            + "|NUL characters).*");
        }
    }

    @Test
    void tooLongOrPaddedNamesAreRefused() {
        Random random = new Random(1029);
        for (int run = 0; run < RUNS / 4; run++) {
            String longName = printable(random, OrgName.MAX_LENGTH + 1 + random.nextInt(40));
            assertThatThrownBy(() -> new OrgName(longName)).hasMessageContaining("at most 80");
            String inner = printable(random, 1 + random.nextInt(20));
            assertThatThrownBy(() -> new OrgName(" " + inner)).hasMessageContaining("space");
            assertThatThrownBy(() -> new OrgName(inner + " ")).hasMessageContaining("space");
        }
        assertThatThrownBy(() -> new OrgName("")).hasMessageContaining("required");
        assertThatThrownBy(() -> new OrgName(null)).hasMessageContaining("required");
    }

    /** {@code length} characters (code points), never starting or ending with a space. */
    private static String printable(Random random, int length) {
        StringBuilder name = new StringBuilder();
        for (int i = 0; i < length; i++) {
            int c = PRINTABLE[random.nextInt(PRINTABLE.length)];
            if (c == ' ' && (i == 0 || i == length - 1)) {
                c = 'q';
            }
            name.appendCodePoint(c);
        }
        return name.toString();
    }

    private static String insertAt(String text, int codePointIndex, int codePoint) {
        int offset = text.offsetByCodePoints(0, Math.min(codePointIndex, text.codePointCount(0, text.length())));
        return text.substring(0, offset) + new String(Character.toChars(codePoint)) + text.substring(offset);
    }
}
