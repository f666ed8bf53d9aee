package io.mergesynthesis.service.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.service.core.ConflictReport;
import io.mergesynthesis.service.db.ConflictStore;
import io.mergesynthesis.service.db.ConflictStore.Stored;
import io.mergesynthesis.service.db.EventLog;
import io.mergesynthesis.service.db.EventLog.EventType;
import io.mergesynthesis.service.db.ScopedTransactions;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * Stores validated reports: all of a request in one transaction, each org's rows under that org's scope,
 * a "conflict detected" event beside every new row, and one wake-up for the workers when anything is new.
 */
public final class ConflictIntake {

    private final ScopedTransactions transactions;
    private final ObjectMapper json;

    public ConflictIntake(ScopedTransactions transactions, ObjectMapper json) {
        this.transactions = transactions;
        this.json = json;
    }

    /** What happened to one report, in request order. */
    public record Ingested(UUID id, UUID orgId, String dedupKey, boolean created) {
    }

    public List<Ingested> store(List<ConflictReport> reports) {
        return transactions.asTenant(handle -> {
            List<Ingested> ingested = new ArrayList<>(reports.size());
            UUID scopedOrg = null;
            boolean anyCreated = false;
            for (ConflictReport report : reports) {
                if (!Objects.equals(scopedOrg, report.orgId())) {
                    ScopedTransactions.switchOrg(handle, report.orgId());
                    scopedOrg = report.orgId();
                }
                Stored stored = ConflictStore.insertIfAbsent(handle, report, write(report.rules()));
                if (stored.created()) {
                    EventLog.append(handle, report.orgId(), stored.id(), EventType.CONFLICT_DETECTED, details(report));
                    anyCreated = true;
                }
                ingested.add(new Ingested(stored.id(), report.orgId(), report.dedupKey(), stored.created()));
            }
            if (anyCreated) {
                ConflictStore.notifyPending(handle);
            }
            return ingested;
        });
    }

    private String details(ConflictReport report) {
        ObjectNode details = json.createObjectNode();
        details.put("dedup_key", report.dedupKey());
        details.put("action", report.action().wireName());
        details.put("target", report.target());
        details.put("winner_policy_id", report.winnerPolicyId());
        details.put("rule_count", report.rules().size());
        return write(details);
    }

    private String write(Object value) {
        try {
            return json.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise " + value.getClass().getSimpleName(), e);
        }
    }
}
