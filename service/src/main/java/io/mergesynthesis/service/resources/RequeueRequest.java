package io.mergesynthesis.service.resources;

import com.fasterxml.jackson.databind.JsonNode;
import io.mergesynthesis.service.api.ErrorBody.FieldProblem;
import io.mergesynthesis.service.requeue.RequeueFilter;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The body of {@code POST /v1/conflicts/retry}, checked field by field: {@code {"org_id": UUID, "failure_reason":
 * one of the eight}}, at least one of them, nothing else. Either {@code filter} or {@code problems} is set.
 */
record RequeueRequest(RequeueFilter filter, List<FieldProblem> problems) {

    static final String ORG_ID = "org_id";
    static final String FAILURE_REASON = "failure_reason";

    static RequeueRequest parse(JsonNode body) {
        List<FieldProblem> problems = new ArrayList<>();
        if (!body.isObject()) {
            problems.add(new FieldProblem("", "must be a JSON object: {\"org_id\": \"...\", \"failure_reason\": \"...\"}"));
            return new RequeueRequest(null, problems);
        }
        body.fieldNames().forEachRemaining(name -> {
            if (!name.equals(ORG_ID) && !name.equals(FAILURE_REASON)) {
                problems.add(new FieldProblem(name, "is not a field of a re-queue filter (org_id, failure_reason)"));
            }
        });
        UUID org = null;
        JsonNode orgNode = body.get(ORG_ID);
        if (orgNode != null && !orgNode.isNull()) {
            try {
                org = orgNode.isTextual() ? Ids.parseUuid(orgNode.textValue()) : null;
            } catch (IllegalArgumentException e) {
                org = null;
            }
            if (org == null) {
                problems.add(new FieldProblem(ORG_ID, "must be an org id (a UUID)"));
            }
        }
        String reason = null;
        JsonNode reasonNode = body.get(FAILURE_REASON);
        if (reasonNode != null && !reasonNode.isNull()) {
            if (reasonNode.isTextual() && RequeueFilter.FAILURE_REASONS.contains(reasonNode.textValue())) {
                reason = reasonNode.textValue();
            } else {
                problems.add(new FieldProblem(FAILURE_REASON,
                        "must be one of " + String.join(", ", RequeueFilter.FAILURE_REASONS)));
            }
        }
        if (problems.isEmpty() && org == null && reason == null) {
            problems.add(new FieldProblem("", "name org_id, failure_reason or both: re-queueing every marked "
                    + "conflict of every org takes one request per failure reason"));
        }
        return problems.isEmpty() ? new RequeueRequest(new RequeueFilter(org, reason), List.of())
                : new RequeueRequest(null, problems);
    }
}
