package io.mergesynthesis.service.inbox;

import io.mergesynthesis.service.core.StoredConflict;
import java.util.List;

/**
 * One page of an org's conflicts, newest first.
 *
 * @param next where the following page begins; null on the last page
 */
public record PageOfConflicts(List<StoredConflict> conflicts, PageCursor next) {
}
