package io.mergesynthesis.llm.openai;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class OpenAiHeadersTest {

    @Test
    void goDurationsAsOpenAiWritesThem() {
        assertThat(OpenAiHeaders.goDuration("250ms")).contains(Duration.ofMillis(250));
        assertThat(OpenAiHeaders.goDuration("1s")).contains(Duration.ofSeconds(1));
        assertThat(OpenAiHeaders.goDuration("1.5s")).contains(Duration.ofMillis(1500));
        assertThat(OpenAiHeaders.goDuration("6m0s")).contains(Duration.ofMinutes(6));
        assertThat(OpenAiHeaders.goDuration("2m59.56s")).contains(Duration.ofMillis(179_560));
        assertThat(OpenAiHeaders.goDuration("1h2m")).contains(Duration.ofMinutes(62));
        assertThat(OpenAiHeaders.goDuration("17.65ms")).contains(Duration.ofNanos(17_650_000));
        assertThat(OpenAiHeaders.goDuration("0s")).contains(Duration.ZERO);
    }
}
