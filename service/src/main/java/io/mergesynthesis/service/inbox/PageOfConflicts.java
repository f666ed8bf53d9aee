package io.mergesynthesis.service.inbox;

import io.mergesynthesis.service.core.StoredConflict;
import java.util.List;

/**
 * One page of an org's conflicts, newest first.
 *
 * @param next  where the page of older conflicts begins; null on the oldest page
 * @param newer where the page of newer conflicts begins; null on the newest page
 */
public record PageOfConflicts(List<StoredConflict> conflicts, PageCursor next, PageCursor newer) {
}
