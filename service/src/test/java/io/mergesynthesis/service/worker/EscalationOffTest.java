package io.mergesynthesis.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.mergesynthesis.llm.LlmSettings;
import io.mergesynthesis.llm.LlmSynthesizer;
import io.mergesynthesis.llm.ModelPrice;
import io.mergesynthesis.llm.ProviderSettings;
import io.mergesynthesis.llm.ProviderType;
import io.mergesynthesis.synthesis.Ticker;
import io.prometheus.client.CollectorRegistry;
import java.math.BigDecimal;
import java.time.Clock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The same model as primary and escalation turns escalation off (the router never asks a model twice): a
 * low-confidence answer then passes as it is, so the start says so once rather than leaving it to be guessed.
 */
class EscalationOffTest {

    private final Logger logger = (Logger) LoggerFactory.getLogger(LlmSynthesizer.class);
    private Level before;

    @BeforeEach
    void atInfo() {
        before = logger.getLevel();
        logger.setLevel(Level.INFO);
    }

    @AfterEach
    void restore() {
        logger.setLevel(before);
    }

    @Test
    void theSameModelForBothPassesIsLoggedOnceAtStart() {
        try (CapturedLog log = CapturedLog.of(LlmSynthesizer.class)) {
            new LlmSynthesizer(settings("local/llama", "local/llama"), Clock.systemUTC(), Ticker.SYSTEM, new CollectorRegistry());

            assertThat(log.count("escalation is off")).isEqualTo(1);
            assertThat(log.events().get(0).getFormattedMessage()).contains("local/llama").contains("0.7");
        }
    }

    @Test
    void anotherEscalationModelIsNotMentioned() {
        try (CapturedLog log = CapturedLog.of(LlmSynthesizer.class)) {
            new LlmSynthesizer(settings("local/llama", "local/larger"), Clock.systemUTC(), Ticker.SYSTEM, new CollectorRegistry());

            assertThat(log.any("escalation is off")).isFalse();
        }
    }

    private static LlmSettings settings(String primary, String escalation) {
        LlmSettings settings = new LlmSettings();
        settings.setPrimaryModel(primary);
        settings.setEscalationModel(escalation);
        settings.getProviders().put("local", new ProviderSettings(ProviderType.OPENAI, "http://127.0.0.1:9/v1", "k"));
        settings.getModels().put(primary, new ModelPrice(BigDecimal.ONE, BigDecimal.ONE));
        settings.getModels().put(escalation, new ModelPrice(BigDecimal.ONE, BigDecimal.ONE));
        return settings;
    }
}
