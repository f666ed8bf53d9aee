package io.mergesynthesis.service.operator;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.service.auth.Caller;
import io.mergesynthesis.service.core.OrgName;
import io.mergesynthesis.service.db.EventLog;
import io.mergesynthesis.service.db.OrgNames;
import io.mergesynthesis.service.db.ScopedTransactions;
import java.time.Clock;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The orgs' display names: the platform names an org (for the API and the operator's pages alike), and every page
 * reads names to show them instead of ids. Naming writes its {@code org_named} event in the same transaction.
 */
public final class OrgDirectory {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ScopedTransactions transactions;
    private final Clock clock;

    public OrgDirectory(ScopedTransactions transactions, Clock clock) {
        this.transactions = transactions;
        this.clock = clock;
    }

    /** Another org bears the name already: names are unique, ignoring case, so that a name points at one org. */
    public static final class NameTaken extends RuntimeException {
        public NameTaken(String name) {
            super("another org is already named \"" + name + "\" (names are compared ignoring case)");
        }
    }

    /**
     * Names {@code org} {@code name}. Refuses, changing nothing, a name that breaks {@link OrgName}'s rules
     * ({@link IllegalArgumentException}) or that another org bears ({@link NameTaken}).
     */
    public OrgName name(Caller by, UUID org, String name) {
        OrgName valid = new OrgName(name);
        return transactions.crossTenant(handle -> {
            Optional<UUID> holder = OrgNames.takenBy(handle, valid);
            if (holder.isPresent() && !holder.get().equals(org)) {
                throw new NameTaken(valid.text());
            }
            Optional<String> previous = OrgNames.name(handle, org, valid, clock.instant());
            ObjectNode details = JSON.createObjectNode().put("name", valid.text());
            previous.ifPresent(p -> details.put("previous_name", p));
            by.actor().addTo(details).put("role", by.role().wireName());
            EventLog.appendPlatformChange(handle, org, EventLog.EventType.ORG_NAMED, details.toString());
            return valid;
        });
    }

    public Optional<String> nameOf(UUID org) {
        return org == null ? Optional.empty() : transactions.crossTenant(handle -> OrgNames.of(handle, org));
    }

    /** The names of those of {@code orgs} that have one. */
    public Map<UUID, String> namesOf(Collection<UUID> orgs) {
        return transactions.crossTenant(handle -> OrgNames.of(handle, orgs));
    }
}
