package io.mergesynthesis.service.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.UUID;

/** An org's display name, as {@code PUT /v1/orgs/{org_id}/name} answers it. */
public record OrgNameView(@JsonProperty("org_id") UUID orgId, @JsonProperty("name") String name) {
}
