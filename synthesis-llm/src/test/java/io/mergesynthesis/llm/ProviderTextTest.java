package io.mergesynthesis.llm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Whatever a provider sends, what is kept holds no NUL and no lone surrogate, and clean text is left alone. */
class ProviderTextTest {

    private static final char[] PARTS = {'\u0000', '\uD800', '\uDBFF', '\uDC00', '\uDFFF', 'a', 'Z', ' ', '\u00e9',
        '\u4e2d', '"', '\\'};

    private static String randomText(Random random) {
        StringBuilder text = new StringBuilder();
        int length = random.nextInt(12);
        for (int i = 0; i < length; i++) {
            if (random.nextInt(5) == 0) {
                text.append("\uD83D\uDE00");
            } else {
                text.append(PARTS[random.nextInt(PARTS.length)]);
            }
        }
        return text.toString();
    }

    private static boolean storable(String text) {
        return text.indexOf('\u0000') < 0
                && new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8).equals(text);
    }

    @Test
    void everyCleanedTextIsStorableAndCleanTextStaysAsItWas() {
        Random random = new Random(38);
        for (int i = 0; i < 20_000; i++) {
            String text = randomText(random);
            String cleaned = ProviderText.clean(text);
            assertThat(storable(cleaned)).as("%s", text.chars().boxed().toList()).isTrue();
            if (storable(text)) {
                assertThat(cleaned).isSameAs(text);
            }
            assertThat(ProviderText.clean(cleaned)).isEqualTo(cleaned);
        }
    }

    @Test
    void everyStringOfABodyIsCleanedKeysIncluded() {
        JsonNode body = WireProtocol.jsonOrNull("{\"id\":\"a\\u0000b\",\"k\\ud800\":[\"\\udfff\",{\"x\":\"\\u0000\"}]}"
                .getBytes(StandardCharsets.UTF_8));

        assertThat(body.toString()).isEqualTo("{\"id\":\"ab\",\"k\uFFFD\":[\"\uFFFD\",{\"x\":\"\"}]}");
    }
}
