package io.mergesynthesis.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.mergesynthesis.service.testing.HandClock;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** A database outage, or a database that keeps refusing connections, costs the log a few lines, not one per try. */
class FailureStreakTest {

    private static final Duration PAUSE = Duration.ofSeconds(2);

    private static RuntimeException unavailable() {
        return new IllegalStateException("claim failed",
                new SQLException("FATAL: sorry, too many clients already", "53300"));
    }

    private static FailureStreak streak(String logger, HandClock clock) {
        return new FailureStreak(LoggerFactory.getLogger(logger), "Claiming", clock);
    }

    @Test
    void aLongOutageIsOneWarningThenASummaryEveryThirtySecondsThenOneLineWhenItEnds() {
        String name = "test.streak.outage";
        HandClock clock = new HandClock();
        try (CapturedLog log = CapturedLog.of(name)) {
            FailureStreak streak = streak(name, clock);
            for (int i = 0; i < 100; i++) {
                streak.failed(unavailable(), PAUSE);
                clock.advance(PAUSE);
            }
            // 100 failures over 198 s: the first, then one summary every 30 s.
            List<ILoggingEvent> warnings = log.at(Level.WARN);
            assertThat(warnings).hasSize(7);
            assertThat(warnings.get(0).getFormattedMessage())
                    .isEqualTo("Claiming failed, the database is unavailable (FATAL: sorry, too many clients "
                            + "already); retrying in 2s");
            assertThat(warnings.get(0).getThrowableProxy()).isNull();
            assertThat(warnings.get(1).getFormattedMessage())
                    .startsWith("Claiming still failing: 16 failed tries over 30s, retrying every 2s at most");
            assertThat(warnings).allMatch(event -> event.getThrowableProxy() == null);

            assertThat(streak.succeeded()).isTrue();
            assertThat(log.at(Level.INFO)).extracting(ILoggingEvent::getFormattedMessage)
                    .containsExactly("Claiming works again after 100 failed tries over 200s");
            assertThat(streak.succeeded()).as("nothing more to report").isFalse();
            assertThat(log.events()).hasSize(8);
        }
    }

    @Test
    void aDatabaseThatKeepsComingAndGoingIsReportedAtMostEveryThirtySeconds() {
        String name = "test.streak.flapping";
        HandClock clock = new HandClock();
        try (CapturedLog log = CapturedLog.of(name)) {
            FailureStreak streak = streak(name, clock);
            // A failure and a success every second for a minute.
            for (int i = 0; i < 60; i++) {
                streak.failed(unavailable(), PAUSE);
                streak.succeeded();
                clock.advance(Duration.ofSeconds(1));
            }
            List<ILoggingEvent> warnings = log.at(Level.WARN);
            assertThat(warnings).hasSize(2);
            assertThat(warnings.get(1).getFormattedMessage()).contains("(29 more failures since the last report)");
            // Each reported failure says when its run ended; the unreported ones do not.
            assertThat(log.at(Level.INFO)).hasSize(2);
        }
    }

    @Test
    void aFailureThatIsNotTheDatabaseBeingAwayKeepsItsStackTrace() {
        String name = "test.streak.bug";
        try (CapturedLog log = CapturedLog.of(name)) {
            FailureStreak streak = streak(name, new HandClock());
            streak.failed(new IllegalStateException("a bug", new SQLException("syntax error", "42601")), PAUSE);
            assertThat(log.at(Level.WARN)).singleElement().satisfies(event -> {
                assertThat(event.getFormattedMessage()).isEqualTo("Claiming failed; retrying in 2s");
                assertThat(event.getThrowableProxy()).isNotNull();
                assertThat(event.getThrowableProxy().getMessage()).isEqualTo("a bug");
            });
        }
    }

    @Test
    void succeedingWithoutFailuresLogsNothing() {
        String name = "test.streak.quiet";
        try (CapturedLog log = CapturedLog.of(name)) {
            assertThat(streak(name, new HandClock()).succeeded()).isFalse();
            assertThat(log.events()).isEmpty();
        }
    }

    @Test
    void durationsAreRoundedForReading() {
        assertThat(FailureStreak.approximately(Duration.ofMillis(250))).isEqualTo("250ms");
        assertThat(FailureStreak.approximately(Duration.ofSeconds(2))).isEqualTo("2s");
        assertThat(FailureStreak.approximately(Duration.ofMillis(12_345))).isEqualTo("12.3s");
        assertThat(FailureStreak.approximately(Duration.ofMillis(95_400))).isEqualTo("95s");
    }
}
