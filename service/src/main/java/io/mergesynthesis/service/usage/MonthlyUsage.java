package io.mergesynthesis.service.usage;

import io.mergesynthesis.service.db.OrgSynthesisSettings;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.db.UsageLedger;
import java.util.Optional;
import java.util.UUID;

/** Month-to-date use of the model providers from the ledger, for the usage API and the usage page. */
public final class MonthlyUsage {

    private final ScopedTransactions transactions;

    public MonthlyUsage(ScopedTransactions transactions) {
        this.transactions = transactions;
    }

    /** One org's calls, with its model and budget, in one transaction scoped to it. */
    public MonthToDate ofOrg(UUID org) {
        return transactions.inOrg(org, handle -> new MonthToDate(UsageLedger.monthStart(handle),
                UsageLedger.monthToDate(handle, Optional.of(org)), OrgSynthesisSettings.of(handle, org)));
    }

    /** Every org's calls together; for the platform. */
    public MonthToDate ofEveryOrg() {
        return transactions.crossTenant(handle -> new MonthToDate(UsageLedger.monthStart(handle),
                UsageLedger.monthToDate(handle, Optional.empty()), null));
    }
}
