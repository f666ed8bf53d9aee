package io.mergesynthesis.service.worker.pool;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.testing.HandTicker;
import io.mergesynthesis.service.worker.store.ClaimRoutes;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A route is held while its provider asks this replica to wait, then paced for a while (a claim takes one of its
 * conflicts at a time), then claimed freely again; on the hand-moved ticker.
 */
class ClaimHoldTest {

    @Test
    void aHoldThatEndsLeavesItsRoutePacedForAWhileThenFree() {
        HandTicker ticker = new HandTicker();
        ClaimHold hold = new ClaimHold(ticker);
        assertThat(hold.routes()).isEqualTo(ClaimRoutes.NONE);

        hold.pauseClaims("anthropic", false, Duration.ofSeconds(2));
        assertThat(hold.routes()).isEqualTo(new ClaimRoutes(",anthropic,", ""));

        ticker.advance(Duration.ofSeconds(2));
        assertThat(hold.routes()).as("the hold ended: paced").isEqualTo(new ClaimRoutes("", ",anthropic,"));

        ticker.advance(ClaimHold.PACED_AFTER_HOLD.minusMillis(1));
        assertThat(hold.routes().paced()).as("still within the pace").isEqualTo(",anthropic,");

        hold.pauseClaims("anthropic", false, Duration.ofSeconds(1));
        assertThat(hold.routes()).as("held again by the next hand-back").isEqualTo(new ClaimRoutes(",anthropic,", ""));

        ticker.advance(Duration.ofSeconds(1).plus(ClaimHold.PACED_AFTER_HOLD));
        assertThat(hold.routes()).as("long after the last hold: free").isEqualTo(ClaimRoutes.NONE);
    }

    @Test
    void theDefaultRouteIsHeldAndPacedWithItsProvider() {
        HandTicker ticker = new HandTicker();
        ClaimHold hold = new ClaimHold(ticker);
        hold.pauseClaims("openai", true, Duration.ofSeconds(1));
        hold.pauseClaims("anthropic", false, Duration.ofSeconds(3));
        assertThat(hold.routes().held()).contains(",openai,").contains(",*,").contains(",anthropic,");

        ticker.advance(Duration.ofSeconds(2));
        assertThat(hold.routes()).isEqualTo(new ClaimRoutes(",anthropic,", ",openai,*,"));
    }
}
