package io.mergesynthesis.standin;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class OpenAiDialectTest {

    @Test
    void goDurationsAreWrittenAsOpenAiWritesThem() {
        assertThat(OpenAiDialect.goDuration(Duration.ofMillis(250))).isEqualTo("250ms");
        assertThat(OpenAiDialect.goDuration(Duration.ofSeconds(1))).isEqualTo("1s");
        assertThat(OpenAiDialect.goDuration(Duration.ofMillis(1500))).isEqualTo("1.5s");
        assertThat(OpenAiDialect.goDuration(Duration.ofMinutes(6))).isEqualTo("6m0s");
    }
}
