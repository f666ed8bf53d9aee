package io.mergesynthesis.service.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The identifier rule over many random inputs of each kind (seeded, so a failure can be run again). */
class IdentifierTextTest {

    static final int SAMPLES = 2000;

    @Test
    void wellFormedIdentifiersOfEveryScriptAreAccepted() {
        Random random = new Random(38);
        for (int i = 0; i < SAMPLES; i++) {
            String id = TextSamples.wellFormed(random, 40);
            assertThat(IdentifierText.problem(id)).as("%s", TextSamples.json(id)).isNull();
        }
        assertThat(IdentifierText.problem("方針-1")).isNull();
        assertThat(IdentifierText.problem("политика_7")).isNull();
        assertThat(IdentifierText.problem("Müller GmbH")).isNull();
        assertThat(IdentifierText.problem("k\ud83d\ude00")).isNull();
    }

    @Test
    void oneCharacterOfARefusedKindAnywhereIsRefused() {
        Random random = new Random(6);
        for (Map.Entry<String, int[]> kind : TextSamples.REFUSED.entrySet()) {
            assertThat(kind.getValue()).as(kind.getKey()).isNotEmpty();
            for (int i = 0; i < SAMPLES; i++) {
                String id = TextSamples.withOne(random, kind.getValue(), 40);
                assertThat(IdentifierText.problem(id)).as("%s: %s", kind.getKey(), TextSamples.json(id)).isNotNull();
            }
        }
    }

    @Test
    void aSpaceAtEitherEndIsRefused() {
        Random random = new Random(200);
        for (int i = 0; i < SAMPLES; i++) {
            String id = TextSamples.withEdgeSpace(random, 40);
            assertThat(IdentifierText.problem(id)).as("%s", TextSamples.json(id)).contains("space");
        }
    }

    @Test
    void theLookAlikesOfTheReportAreRefusedAndSaySo() {
        assertThat(IdentifierText.problem("pol\u20111")).contains("U+2011");
        assertThat(IdentifierText.problem("pol\u20101")).contains("U+2010").contains("hyphen-minus");
        assertThat(IdentifierText.problem("pol-1 ")).contains("space");
        assertThat(IdentifierText.problem("pol-1\u200b")).contains("U+200B");
        assertThat(IdentifierText.problem("\u202egnp.exe")).contains("U+202E");
        assertThat(IdentifierText.problem("pol\u22121")).contains("minus sign");
        assertThat(IdentifierText.problem("ｐｏｌ")).contains("NFKC");
        assertThat(IdentifierText.problem("Mu\u0308ller")).contains("NFKC");
    }

    @Test
    void freeTextKeepsLinesTabsAndJoinersButNoOtherControls() {
        assertThat(FreeText.problem("first line\n\tsecond, with a family: \ud83d\udc68\u200d\ud83d\udc69")).isNull();
        assertThat(FreeText.problem("bell\u0007")).contains("U+0007");
        assertThat(FreeText.problem("windows\r\nline")).contains("\\n alone");
        assertThat(FreeText.problem("unassigned " + new String(Character.toChars(0x0378)))).contains("unassigned");
        assertThat(FreeText.problem("nul\u0000")).contains("NUL");
    }
}
