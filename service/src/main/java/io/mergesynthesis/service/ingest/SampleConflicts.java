package io.mergesynthesis.service.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.service.core.ConflictReport;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.db.SqlFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The five conflict shapes of the golden fixtures, loaded into an empty embedded database so that a newcomer
 * sees suggested merges without writing a request first. The build copies the fixtures' inputs into the jar.
 */
public final class SampleConflicts {

    private static final Logger LOG = LoggerFactory.getLogger(SampleConflicts.class);
    private static final String NONE_STORED = SqlFiles.of(SampleConflicts.class, "none_stored");

    static final List<String> SHAPES = List.of(
            "01-org-over-member-tool-call",
            "02-platform-over-org-data-export",
            "03-org-unit-over-member-knowledge-query",
            "04-member-wins-over-wildcard",
            "05-platform-default-no-loser");

    private SampleConflicts() {
    }

    /** Through the ingest rules, as any report: a sample that could not be ingested is a broken build. */
    private static ConflictReport asReport(String shape, JsonNode input) {
        ObjectNode body = (ObjectNode) input.deepCopy();
        body.remove("conflict_id");
        body.put("dedup_key", "sample-" + shape);
        ReportParser.Parsed parsed = new ReportParser(1).parse(body, null);
        if (!parsed.valid()) {
            throw new IllegalStateException("sample " + shape + " is not a valid conflict report: " + parsed.errors());
        }
        return parsed.reports().get(0);
    }

    /** Loads the samples if no conflict is stored yet; returns the orgs they belong to. */
    public static Set<UUID> loadIfEmpty(ScopedTransactions transactions, ConflictIntake intake, ObjectMapper json) {
        boolean empty = transactions.crossTenant(handle ->
                handle.createQuery(NONE_STORED).mapTo(Boolean.class).one());
        if (!empty) {
            return Set.of();
        }
        List<ConflictReport> reports = new ArrayList<>();
        for (String shape : SHAPES) {
            try (InputStream in = SampleConflicts.class.getResourceAsStream("/samples/" + shape + "/input.json")) {
                if (in == null) {
                    LOG.warn("Sample {} is missing from the jar; skipping it", shape);
                    continue;
                }
                reports.add(asReport(shape, json.readTree(in)));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read sample " + shape, e);
            }
        }
        if (reports.isEmpty()) {
            return Set.of();
        }
        intake.store(reports);
        Set<UUID> orgs = new LinkedHashSet<>();
        reports.forEach(r -> orgs.add(r.orgId()));
        LOG.info("Loaded {} sample conflicts for org(s) {}", reports.size(), orgs);
        return orgs;
    }
}
