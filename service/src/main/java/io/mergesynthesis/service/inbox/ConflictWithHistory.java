package io.mergesynthesis.service.inbox;

import io.mergesynthesis.service.core.AttemptHistoryLine;
import io.mergesynthesis.service.core.ProviderCall;
import io.mergesynthesis.service.core.StoredConflict;
import java.util.List;

/** One conflict on its own, with the provider calls made for it and the history of its attempts, oldest first. */
public record ConflictWithHistory(StoredConflict conflict, List<ProviderCall> calls,
                                  List<AttemptHistoryLine> history) {
}
