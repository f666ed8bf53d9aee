package io.mergesynthesis.service.operator;

import io.mergesynthesis.service.core.SignedInPerson;
import io.mergesynthesis.service.db.People;
import io.mergesynthesis.service.db.ScopedTransactions;
import java.util.List;

/** The people who signed in with the identity provider, latest first, for the operator's tokens page. */
public final class SignedInPeople {

    private final ScopedTransactions transactions;

    public SignedInPeople(ScopedTransactions transactions) {
        this.transactions = transactions;
    }

    /** At most {@code limit}, as the login role: the service roles cannot read {@code people} (schema 27). */
    public List<SignedInPerson> recent(int limit) {
        return transactions.asLogin(handle -> People.recent(handle, limit));
    }
}
