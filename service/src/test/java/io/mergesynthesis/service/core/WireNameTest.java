package io.mergesynthesis.service.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.export.EventFormat;
import io.mergesynthesis.service.inbox.BulkActions;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** Every word of every wire-named enum finds its own constant, and nothing else finds one. */
class WireNameTest {

    @Test
    void everyWordFindsItsConstantAndNoOtherWordDoes() {
        roundTrips(SynthesisState.class);
        roundTrips(InboxStatus.class);
        roundTrips(Resolution.class);
        roundTrips(FleetOverview.OrgOrder.class);
        roundTrips(BulkActions.Operation.class);
        roundTrips(Role.class);
        roundTrips(EventFormat.class);
    }

    private static <E extends Enum<E> & WireName> void roundTrips(Class<E> type) {
        for (E constant : type.getEnumConstants()) {
            String word = constant.wireName();
            assertThat(WireName.lookup(type, word)).as(type.getSimpleName() + " " + word).contains(constant);
            assertThat(WireName.lookup(type, word.toUpperCase(Locale.ROOT) + "x")).isEmpty();
        }
        assertThat(WireName.lookup(type, null)).isEmpty();
        assertThat(WireName.lookup(type, "")).isEmpty();
    }

    @Test
    void listsTheWordsInOrderAndAStoredWordOutsideTheDomainIsABrokenDatabase() {
        assertThat(WireName.list(InboxStatus.class)).isEqualTo("open, acknowledged, resolved");
        assertThat(SynthesisState.ofStored("done")).isEqualTo(SynthesisState.DONE);
        assertThat(Resolution.ofStored(null)).isNull();
        assertThatThrownBy(() -> InboxStatus.ofStored("archived"))
                .isInstanceOf(IllegalStateException.class).hasMessage("unknown inbox status archived");
        assertThat(FleetOverview.OrgOrder.ofQuery("nonsense")).isEqualTo(FleetOverview.OrgOrder.SPEND);
        assertThat(FleetOverview.OrgOrder.ofQuery("name")).isEqualTo(FleetOverview.OrgOrder.NAME);
    }
}
