package io.mergesynthesis.service.web;

import io.mergesynthesis.service.core.MergeCheckResult;
import io.mergesynthesis.service.core.StoredConflict;
import io.mergesynthesis.synthesis.MergeFinding;
import java.util.Arrays;
import java.util.List;

/**
 * What a conflict's page says of the merge check: that the stored merge passed it (and which version), or that the
 * merge was stored before the check existed, with the check's promises in words either way.
 *
 * @param properties what the check proves of a merge, one sentence each
 */
record CheckPanel(boolean passed, boolean notChecked, Integer version, List<String> properties) {

    private static final List<String> PROPERTIES = Arrays.stream(MergeFinding.Property.values())
            .map(MergeFinding.Property::description)
            .toList();

    /** Null while no merge is stored: there is nothing to say. */
    static CheckPanel of(StoredConflict conflict) {
        MergeCheckResult result = MergeCheckResult.of(conflict);
        if (result == MergeCheckResult.NONE) {
            return null;
        }
        return new CheckPanel(result == MergeCheckResult.PASSED, result == MergeCheckResult.NOT_CHECKED,
                conflict.mergeCheckVersion(), PROPERTIES);
    }
}
