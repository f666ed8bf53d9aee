package io.mergesynthesis.service.models;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mergesynthesis.service.core.ModelCatalog;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.Router;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The worker passes the org's model setting it read with the conflict: the router must use it as given and read
 * nothing, or every attempt of an org not remembered would cost a transaction of its own.
 */
class ConfiguredRouterTest {

    private static final UUID ORG = UUID.fromString("00000000-0000-0000-0000-0000000000a1");

    private final AtomicInteger reads = new AtomicInteger();
    private final ConfiguredRouter router = new ConfiguredRouter(new ModelCatalog(List.of(
            model("anthropic/small"), model("anthropic/large"), model("openai/other")),
            "anthropic/small", "anthropic/large"),
            org -> {
                reads.incrementAndGet();
                return "openai/other";
            }, Duration.ofMinutes(5));

    @Test
    void theSettingReadWithTheConflictIsUsedWithoutReadingAgain() throws Exception {
        ResolvedModel own = router.resolve(Router.MERGE_SYNTHESIS, ORG, "openai/other");
        assertThat(own.qualifiedName()).isEqualTo("openai/other");
        assertThat(own.escalation().qualifiedName()).isEqualTo("anthropic/large");

        ResolvedModel none = router.resolve(Router.MERGE_SYNTHESIS, ORG, null);
        assertThat(none.qualifiedName()).as("no setting: the primary").isEqualTo("anthropic/small");
        assertThat(reads).as("settings reads by the router itself").hasValue(0);
    }

    @Test
    void aSettingNamingAModelNoLongerConfiguredIsRefusedNotSwappedForThePrimary() {
        assertThatThrownBy(() -> router.resolve(Router.MERGE_SYNTHESIS, ORG, "openai/retired"))
                .isInstanceOf(Router.RouterException.class)
                .hasMessageContaining("openai/retired");
    }

    @Test
    void aSettingNamingAModelWithoutItsKeyIsRefused() {
        ConfiguredRouter keyless = new ConfiguredRouter(new ModelCatalog(List.of(model("anthropic/small"),
                new ModelCatalog.Model("openai/other", "openai", BigDecimal.ONE, BigDecimal.ONE, BigDecimal.ZERO,
                        BigDecimal.ZERO, false, "cannot be used on this replica: set OPENAI_API_KEY",
                        "OPENAI_API_KEY")), "anthropic/small", null), org -> null, Duration.ofMinutes(5));

        assertThatThrownBy(() -> keyless.resolve(Router.MERGE_SYNTHESIS, ORG, "openai/other"))
                .isInstanceOf(Router.RouterException.class)
                .hasMessageContaining("OPENAI_API_KEY");
    }

    @Test
    void withoutTheSettingTheRouterReadsItOnceAndRemembersIt() throws Exception {
        assertThat(router.resolve(Router.MERGE_SYNTHESIS, ORG).qualifiedName()).isEqualTo("openai/other");
        assertThat(router.resolve(Router.MERGE_SYNTHESIS, ORG).qualifiedName()).isEqualTo("openai/other");
        assertThat(reads).hasValue(1);

        router.forget(ORG);
        router.resolve(Router.MERGE_SYNTHESIS, ORG);
        assertThat(reads).as("read again once forgotten").hasValue(2);
    }

    @Test
    void anotherFunctionHasNoModel() {
        assertThatThrownBy(() -> router.resolve("policy.explain", ORG, null))
                .isInstanceOf(Router.RouterException.class)
                .hasMessageContaining("policy.explain");
    }

    private static ModelCatalog.Model model(String name) {
        return new ModelCatalog.Model(name, name.substring(0, name.indexOf('/')), BigDecimal.ONE, BigDecimal.ONE,
                BigDecimal.ZERO, BigDecimal.ZERO);
    }
}
