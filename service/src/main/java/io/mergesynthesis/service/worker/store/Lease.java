package io.mergesynthesis.service.worker.store;

import java.util.UUID;

/**
 * A claimed conflict. {@code owner} and {@code attempts} together fence every later write: the claim bumps
 * {@code attempts}, so even a replica that claims its own expired lease again holds a different lease.
 *
 * @param recovered    true when the row was claimed from an expired lease rather than from pending
 * @param cutByRestart true when that expired lease had been granted before the database server last started:
 *                     the restart, rather than a crash of its holder, may be what ended it
 * @param heldUntil    when the lease runs out, reckoned on this JVM from just before the claim was sent (so no
 *                     later than the expiry the database wrote). It only bounds how long a write is retried;
 *                     what keeps a late write harmless is the fence, not any clock
 */
public record Lease(UUID conflictId, UUID orgId, String owner, int attempts, boolean recovered,
                    boolean cutByRestart, Deadline heldUntil) {
}
