package io.mergesynthesis.service.inbox;

import io.mergesynthesis.service.core.StoredConflict;
import java.util.List;

/**
 * One page of an org's conflicts, in the order asked for (newest first unless said otherwise).
 *
 * @param next     where the following page begins; null on the last page
 * @param previous where the page before this one ends; null on the first page
 */
public record PageOfConflicts(List<StoredConflict> conflicts, PageCursor next, PageCursor previous) {
}
