package io.mergesynthesis.service.core;

import java.util.Locale;

/**
 * What the merge check says of a conflict's stored merge, read from the row: the worker writes the check's version
 * with every merge it stores, so a merge with a version passed that version of the check, and a merge without one
 * was stored before the check existed.
 */
public enum MergeCheckResult {
    /** The stored merge passed the check; the row says which version. */
    PASSED,
    /** A merge is stored, but from before the check existed: nothing proves its structure. */
    NOT_CHECKED,
    /** No merge is stored, so there is nothing to check. */
    NONE;

    public static MergeCheckResult of(StoredConflict conflict) {
        if (conflict.suggestedMergeJson() == null) {
            return NONE;
        }
        return conflict.mergeCheckVersion() == null ? NOT_CHECKED : PASSED;
    }

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
