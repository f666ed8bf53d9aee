package io.mergesynthesis.service.inbox;

import io.mergesynthesis.service.core.InboxStatus;
import io.mergesynthesis.service.core.SynthesisState;

/** Which of an org's conflicts a page lists; a null field does not filter. */
public record InboxFilter(InboxStatus inboxStatus, SynthesisState synthesisState) {

    public static final InboxFilter NONE = new InboxFilter(null, null);

    public boolean filters() {
        return inboxStatus != null || synthesisState != null;
    }
}
