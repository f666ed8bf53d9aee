package io.mergesynthesis.llm;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What a provider's error text keeps once everything key-shaped is out of it. */
class KeyShapesTest {

    /** A made-up key, put together here so that nothing shaped like a real key sits in the repository. */
    static final String KEY = "sk-" + "ant-api03-" + "REDACTEDtestKEY-0123456789";

    @Test
    void theKeyWholeAndEveryShortenedFormOfItAreRemoved() {
        String said = "invalid x-api-key " + KEY + "; shown as sk-ant-RED...6789, sk-ant-api03-****6789 and "
                + "sk-ant-a…6789; also sk-" + "proj-abcdEFGH1234";

        String cleaned = KeyShapes.removeFrom(said, KEY);

        assertThat(cleaned).doesNotContain("sk-").doesNotContain("REDACTED").doesNotContain("6789")
                .doesNotContain("abcdEFGH").startsWith("invalid x-api-key [key removed]; shown as [key removed]");
    }

    @Test
    void aKeyOfNoKnownFormIsRemovedByItsHeadAndAnyElidedWordByItsShape() {
        String key = "Zq81mnbvLKJ0998877";

        String cleaned = KeyShapes.removeFrom("bad key Zq81mnbvLK... (Zq81...8877), AKIA****WXYZ", key);

        assertThat(cleaned).isEqualTo("bad key [key removed] ([key removed]), [key removed]");
    }

    @Test
    void bearerCredentialsAndServiceTokensAreRemovedAndPlainWordsKept() {
        String cleaned = KeyShapes.removeFrom("Authorization: Bearer abc.DEF-123 from msk_Q1w2E3r4 about "
                + "task-runner... and the model's max_tokens", null);

        assertThat(cleaned).isEqualTo("Authorization: [key removed] from [key removed] about task-runner... and the "
                + "model's max_tokens");
    }
}
