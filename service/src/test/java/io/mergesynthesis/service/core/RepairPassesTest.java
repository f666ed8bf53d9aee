package io.mergesynthesis.service.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A second pass is shown as a repair exactly when its attempt's primary answer was refused by the merge check. */
class RepairPassesTest {

    private static ProviderCall call(int attempt, String pass, String outcome) {
        return new ProviderCall(attempt, pass, "standin", "small", 10, 5, 0, 0, BigDecimal.ONE, 3, outcome,
                Instant.EPOCH, "interactive");
    }

    @Test
    void theSecondPassAfterARefusalIsARepairAndAnEscalationStaysOne() {
        List<ProviderCall> calls = List.of(
                call(1, "primary", "refused"), call(1, "escalation", "stored"),
                call(2, "primary", "discarded"), call(2, "escalation", "stored"),
                call(3, "primary", "stored"), call(3, "escalation", "refused"));

        assertThat(RepairPasses.named(calls)).extracting(c -> c.attempt() + ":" + c.pass() + ":" + c.outcome())
                .containsExactly("1:primary:refused", "1:repair:stored",
                        "2:primary:discarded", "2:escalation:stored",
                        "3:primary:stored", "3:escalation:refused");
    }
}
