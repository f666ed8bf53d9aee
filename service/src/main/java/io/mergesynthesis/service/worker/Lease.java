package io.mergesynthesis.service.worker;

import java.util.UUID;

/**
 * A claimed conflict. {@code owner} and {@code attempts} together fence every later write: the claim bumps
 * {@code attempts}, so even a replica that claims its own expired lease again holds a different lease.
 *
 * @param recovered true when the row was claimed from an expired lease rather than from pending
 */
public record Lease(UUID conflictId, UUID orgId, String owner, int attempts, boolean recovered) {
}
