package io.mergesynthesis.service.web;

import java.util.List;

/**
 * The values of the failed conflicts page.
 *
 * @param reason  the reason filtered on, or null
 * @param org     the org filtered on, or null
 * @param older   the cursor of the next, older page, or null
 * @param paged   whether this is not the newest page
 * @param filter  the filter as query parameters to carry to the next page ({@code &reason=..&org=..})
 * @param back    the filter as the forms send it back, to return to this list
 */
record FailedPage(String reason, OrgLabel org, List<String> reasons, List<Row> rows, String older, boolean paged,
                  String filter, String back) {

    record Row(String id, OrgLabel orgLabel, String target, String failureReason, int attempts, Moment when) {
    }

    boolean hasRows() {
        return !rows.isEmpty();
    }

    List<ReasonOption> reasonOptions() {
        return reasons.stream().map(r -> new ReasonOption(r, r.equals(reason))).toList();
    }

    record ReasonOption(String value, boolean selected) {
    }
}
