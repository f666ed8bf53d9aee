package io.mergesynthesis.service.web;

import io.mergesynthesis.service.db.OrgSynthesisSettings;
import io.mergesynthesis.service.db.UsageLedger;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * One org's provider calls this month by model, with the model and budget the platform set for it: what the
 * usage page shows, read through the ledger's and the settings' own SQL.
 */
record OrgUsage(List<UsageLedger.ModelUsage> byModel, OrgSynthesisSettings.Settings settings, Instant monthStart) {

    /** On a handle already scoped to {@code org}. */
    static OrgUsage monthToDate(Handle handle, UUID org) {
        return new OrgUsage(UsageLedger.monthToDate(handle, Optional.of(org)), OrgSynthesisSettings.of(handle, org),
                UsageLedger.monthStart(handle));
    }

    BigDecimal totalCost() {
        return byModel.stream().map(UsageLedger.ModelUsage::costUsd).reduce(BigDecimal.ZERO, BigDecimal::add);
    }
}
