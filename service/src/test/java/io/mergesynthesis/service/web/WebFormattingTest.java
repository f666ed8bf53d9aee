package io.mergesynthesis.service.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mergesynthesis.service.settings.MonthlyBudget;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import org.glassfish.jersey.server.ContainerRequest;
import org.junit.jupiter.api.Test;

/** The small rules behind what pages show and accept. */
class WebFormattingTest {

    static final Instant NOW = Instant.parse("2026-11-23T12:00:00Z");

    @Test
    void relativeTimes() {
        assertThat(Moment.relative(NOW.minusSeconds(10), NOW)).isEqualTo("just now");
        assertThat(Moment.relative(NOW.minusSeconds(180), NOW)).isEqualTo("3 min ago");
        assertThat(Moment.relative(NOW.minus(Duration.ofHours(5)), NOW)).isEqualTo("5 h ago");
        assertThat(Moment.relative(NOW.minus(Duration.ofDays(1)), NOW)).isEqualTo("1 day ago");
        assertThat(Moment.relative(NOW.minus(Duration.ofDays(3)), NOW)).isEqualTo("3 days ago");
        assertThat(Moment.relative(NOW.plusSeconds(120), NOW)).isEqualTo("in 2 min");
        assertThat(Moment.relative(NOW.minus(Duration.ofDays(60)), NOW)).isEqualTo("24 Sep 2026");
        Moment m = Moment.of(NOW.minusSeconds(180), NOW);
        assertThat(m.iso()).isEqualTo("2026-11-23T11:57:00Z");
        assertThat(m.exact()).isEqualTo("2026-11-23 11:57:00 UTC");
        assertThat(Moment.of(null, NOW)).isNull();
    }

    @Test
    void dollars() {
        assertThat(Dollars.usd(new BigDecimal("0"))).isEqualTo("$0.00");
        assertThat(Dollars.usd(new BigDecimal("0.000900000"))).isEqualTo("$0.0009");
        assertThat(Dollars.usd(new BigDecimal("0.0125"))).isEqualTo("$0.0125");
        assertThat(Dollars.usd(new BigDecimal("0.25"))).isEqualTo("$0.25");
        assertThat(Dollars.usd(new BigDecimal("12.5"))).isEqualTo("$12.50");
        assertThat(Dollars.usd(new BigDecimal("1234.567"))).isEqualTo("$1234.57");
        assertThat(Dollars.usd(null)).isNull();
    }

    @Test
    void budgets() {
        assertThat(MonthlyBudget.parse("")).isNull();
        assertThat(MonthlyBudget.parse(" 12.5 ")).isEqualByComparingTo("12.5");
        assertThat(MonthlyBudget.parse("0")).isEqualByComparingTo("0");
        assertThat(MonthlyBudget.parse("0.000001")).isEqualByComparingTo("0.000001");
        for (String bad : new String[] {"-1", "abc", "1e400", "0.0000001", "2000000000", "NaN"}) {
            assertThatThrownBy(() -> MonthlyBudget.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void canonicalIdsOnly() {
        assertThat(CanonicalIds.uuid("66149ad9-b0fe-4981-b3a0-ea0d94e58b4f")).isNotNull();
        assertThat(CanonicalIds.uuid("66149AD9-B0FE-4981-B3A0-EA0D94E58B4F")).isNotNull();
        assertThat(CanonicalIds.uuid("1-1-1-1-1")).isNull();
        assertThat(CanonicalIds.uuid("not-a-uuid")).isNull();
        assertThat(CanonicalIds.uuid(null)).isNull();
    }

    @Test
    void inboxLinksCarryOnlyKnownValuesEncoded() {
        assertThat(InboxQuery.of(null, null, null, null, null, null, null).first()).isEqualTo("/");
        io.mergesynthesis.service.inbox.PageCursor at = new io.mergesynthesis.service.inbox.PageCursor(
                java.time.Instant.parse("2026-11-20T10:15:00Z"), java.util.UUID.fromString("66149ad9-b0fe-4981-b3a0-ea0d94e58b4f"));
        InboxQuery query = InboxQuery.of("open", "done", "tool_call", "a&b=c d", null, null, null);
        assertThat(query.onward(at)).isEqualTo("/?inbox_status=open&synthesis_state=done&action=tool_call&q=a%26b%3Dc+d&after="
                + at.encode());
        assertThat(query.back(at)).endsWith("&before=" + at.encode());
        // Unknown values and damaged cursors are dropped rather than carried into the links.
        InboxQuery odd = InboxQuery.of("closed", "done", "<script>", "   ", "oldest", "not-a-cursor", at.encode());
        assertThat(odd.first()).isEqualTo("/?synthesis_state=done&sort=oldest");
        assertThat(odd.direction()).isEqualTo(io.mergesynthesis.service.inbox.InboxReads.Direction.BACK);
        assertThat(odd.live()).isEqualTo("/live/inbox?synthesis_state=done&sort=oldest&before=" + at.encode());
        assertThat(InboxQuery.of(null, null, null, null, "sideways", null, null).first()).isEqualTo("/");
    }

    @Test
    void sameSiteChecks() {
        assertThat(FormGuard.sameSite(headers("Sec-Fetch-Site", "same-origin", "Origin", "null"))).isTrue();
        assertThat(FormGuard.sameSite(headers("Origin", "http://app.example:8080"))).isTrue();
        assertThat(FormGuard.sameSite(headers())).isTrue();
        assertThat(FormGuard.sameSite(headers("Sec-Fetch-Site", "cross-site"))).isFalse();
        assertThat(FormGuard.sameSite(headers("Sec-Fetch-Site", "same-site"))).isFalse();
        assertThat(FormGuard.sameSite(headers("Origin", "http://evil.example"))).isFalse();
        assertThat(FormGuard.accepts(headers(), "key", "key")).isTrue();
        assertThat(FormGuard.accepts(headers(), "key", "kez")).isFalse();
        assertThat(FormGuard.accepts(headers(), "key", null)).isFalse();
    }

    private static ContainerRequest headers(String... pairs) {
        ContainerRequest request = new ContainerRequest(null, java.net.URI.create("http://app.example:8080/x"), "POST",
                null, new org.glassfish.jersey.internal.MapPropertiesDelegate(), null);
        request.header("Host", "app.example:8080");
        for (int i = 0; i < pairs.length; i += 2) {
            request.header(pairs[i], pairs[i + 1]);
        }
        return request;
    }
}
