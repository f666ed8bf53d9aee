package io.mergesynthesis.service.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Whose {@code X-Forwarded-Proto} is believed: exactly the addresses and ranges of {@code web.trustedProxies}, as
 * the shipped config.yml reads them from {@code TRUSTED_PROXIES}; nobody's when it is empty.
 */
class TrustedProxiesTest {

    @Test
    void anEmptyListTrustsNoOne() {
        TrustedProxies none = TrustedProxies.of(List.of());
        Random random = new Random(42);
        for (int i = 0; i < 1000; i++) {
            assertThat(none.trusts(random.nextInt(256) + "." + random.nextInt(256) + "." + random.nextInt(256) + "."
                    + random.nextInt(256))).isFalse();
        }
        assertThat(none.trusts("127.0.0.1")).isFalse();
    }

    @Test
    void aRangeTrustsItsAddressesAndNoOthers() {
        TrustedProxies proxies = TrustedProxies.of(List.of("10.0.0.0/8", "192.168.1.7"));
        Random random = new Random(7);
        for (int i = 0; i < 1000; i++) {
            int a = random.nextInt(256);
            String address = a + "." + random.nextInt(256) + "." + random.nextInt(256) + "." + random.nextInt(256);
            assertThat(proxies.trusts(address)).as(address).isEqualTo(a == 10 || address.equals("192.168.1.7"));
        }
        assertThat(proxies.trusts("192.168.1.8")).isFalse();
    }

    @Test
    void anEntryThatIsNoAddressStopsTheStartNamingIt() {
        assertThatThrownBy(() -> TrustedProxies.of(List.of("10.0.0.0/8", "proxy.internal")))
                .hasMessageContaining("proxy.internal");
    }
}
