package io.mergesynthesis.service.web;

import io.mergesynthesis.service.db.UsageLedger;
import io.mergesynthesis.service.resources.ConflictResource;
import java.time.Instant;
import org.jdbi.v3.core.Handle;

/** A page class as the layering rules forbid it: it reads the ledger itself and borrows from the API. */
final class LayeringViolationSample {

    private LayeringViolationSample() {
    }

    static Instant monthStart(Handle handle) {
        return UsageLedger.monthStart(handle);
    }

    static String borrowed(ConflictResource api) {
        return api.toString();
    }
}
