package io.mergesynthesis.standin;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The gaps between calls the stand-in reports, on arrival times given by hand. */
class CallGapsTest {

    @Test
    void theFirstGapIsToldApartFromTheLongestOfTheLaterOnes() {
        Stats.Gaps gaps = new Stats.Gaps();
        assertThat(gaps.firstGap()).isEqualTo(-1);
        assertThat(gaps.longest(10)).isZero();

        gaps.call(0);
        gaps.call(300);
        assertThat(gaps.firstGap()).isEqualTo(300);
        assertThat(gaps.longestLater(300)).as("no later gap yet").isZero();
        assertThat(gaps.longestLaterEnd(300)).isEqualTo(-1);

        gaps.call(450);
        gaps.call(500);

        assertThat(gaps.firstGap()).isEqualTo(300);
        assertThat(gaps.longest(500)).isEqualTo(300);
        assertThat(gaps.longestLater(500)).isEqualTo(150);
        assertThat(gaps.longestLaterEnd(500)).as("it ended with the third call").isEqualTo(450);
        assertThat(gaps.longestLater(800)).as("the gap still open counts").isEqualTo(300);
        assertThat(gaps.longestLaterEnd(800)).isEqualTo(800);
        assertThat(gaps.sinceFirst(800)).isEqualTo(800);
    }
}
