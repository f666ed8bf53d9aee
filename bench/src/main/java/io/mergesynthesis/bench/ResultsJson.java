package io.mergesynthesis.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The same figures as the table, as {@code results.json}: {@code figures.<key>} holds {@code value} and
 * {@code unit}, or {@code skipped} with the reason, for every key in {@link Metric}; a figure with a stated
 * target also holds {@code target} (its text) and, once measured, {@code verdict} ({@code MET} or {@code MISSED}).
 */
final class ResultsJson {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private ResultsJson() {
    }

    static Path write(Results results, Path dir) throws IOException {
        ObjectNode root = JSON.createObjectNode();
        root.put("format", 1);
        ObjectNode figures = root.putObject("figures");
        for (Results.Figure f : results.figures()) {
            ObjectNode node = figures.putObject(f.metric().key);
            node.put("label", f.metric().label);
            node.put("unit", f.metric().unit);
            Metric.Target target = results.targetOf(f.metric());
            if (target != null && !target.describe().isEmpty()) {
                node.put("target", target.describe());
            }
            if (f.value() != null) {
                node.put("value", f.value());
                if (target != null && target.verdict(f.value()) != null) {
                    node.put("verdict", target.verdict(f.value()));
                }
            } else {
                node.put("skipped", f.skipped());
            }
        }
        ArrayNode scale = root.putArray("scale");
        for (Results.ScalePoint p : results.scale()) {
            ObjectNode point = scale.addObject();
            point.put("history_rows", p.historyRows());
            if (p.poolPerSecond() != null) {
                point.put("pool_per_s", p.poolPerSecond());
            }
            if (p.ceilingPerSecond() != null) {
                point.put("ceiling_per_s", p.ceilingPerSecond());
            }
        }
        root.set("context", JSON.valueToTree(results.context));
        root.set("notes", JSON.valueToTree(results.notes()));
        root.set("errors", JSON.valueToTree(results.errors()));
        Files.createDirectories(dir);
        Path file = dir.resolve("results.json");
        JSON.writeValue(file.toFile(), root);
        return file;
    }
}
