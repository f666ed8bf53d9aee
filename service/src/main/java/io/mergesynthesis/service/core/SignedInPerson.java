package io.mergesynthesis.service.core;

import java.time.Instant;
import java.util.UUID;

/** A person who signed in with the identity provider, as the operator sees them; {@code orgId} is null for platform. */
public record SignedInPerson(String subject, UUID orgId, String email, String name, String role, Instant firstSeen,
                             Instant lastSeen) {
}
