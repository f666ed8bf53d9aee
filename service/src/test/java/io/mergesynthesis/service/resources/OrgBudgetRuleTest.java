package io.mergesynthesis.service.resources;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.Seed;
import io.mergesynthesis.service.testing.TestApp;
import java.math.BigDecimal;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code PUT /v1/orgs/{org_id}/synthesis} holds a budget to the same rule as the operator page: trailing zeros
 * past the sixth decimal place are accepted, a seventh digit that matters is refused and nothing is stored.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class OrgBudgetRuleTest {

    static final TestApp APP = TestApp.apiOnly();
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    static String platform;

    @BeforeAll
    static void tokens() {
        platform = APP.token(Role.PLATFORM, null);
    }

    @Test
    void aBudgetWithTrailingZerosPastSixDecimalsIsAccepted() {
        UUID org = UUID.randomUUID();

        HttpResponse<String> saved = put(org, "{\"monthly_budget_usd\": 12.5000000}");

        assertThat(saved.statusCode()).as(saved.body()).isEqualTo(200);
        assertThat(Seed.parse(saved.body()).get("monthly_budget_usd").decimalValue())
                .isEqualByComparingTo(new BigDecimal("12.5"));
    }

    @Test
    void aSeventhDecimalThatCountsIsRefusedAndNothingIsStored() {
        UUID org = UUID.randomUUID();

        HttpResponse<String> refused = put(org, "{\"monthly_budget_usd\": 12.5000001}");

        assertThat(refused.statusCode()).isEqualTo(422);
        JsonNode problem = Seed.parse(refused.body()).at("/errors/0");
        assertThat(problem.get("field").asText()).isEqualTo("monthly_budget_usd");
        assertThat(problem.get("message").asText()).isEqualTo("has more than 6 decimal places");
        long stored = APP.database().jdbi().withHandle(h -> h.createQuery(
                "SELECT count(*) FROM org_synthesis_settings WHERE org_id = :org").bind("org", org)
                .mapTo(Long.class).one());
        assertThat(stored).isZero();
    }

    private static HttpResponse<String> put(UUID org, String json) {
        return APP.send(HttpRequest.newBuilder(APP.uri("/v1/orgs/" + org + "/synthesis"))
                .header("Authorization", "Bearer " + platform)
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(json)).build());
    }
}
