package io.mergesynthesis.service.inbox;

import io.mergesynthesis.service.core.AttemptHistoryLine;
import io.mergesynthesis.service.core.Deciders;
import io.mergesynthesis.service.core.ProviderCall;
import io.mergesynthesis.service.core.StoredConflict;
import java.util.List;

/**
 * One conflict on its own, with the provider calls made for it, the history of its attempts, oldest first, and who
 * acknowledged and resolved it.
 */
public record ConflictWithHistory(StoredConflict conflict, List<ProviderCall> calls,
                                  List<AttemptHistoryLine> history, Deciders deciders) {
}
