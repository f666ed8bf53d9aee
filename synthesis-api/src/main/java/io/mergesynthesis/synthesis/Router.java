package io.mergesynthesis.synthesis;

import java.util.UUID;

/** Picks the model for a product function and an org. The one place in the product that names a model. */
public interface Router {

    /** The function key under which the worker asks for a merge-synthesis model. */
    String MERGE_SYNTHESIS = "conflict.merge_synthesis";

    /**
     * @throws RouterException when no model can serve this function for this org
     */
    ResolvedModel resolve(String functionKey, UUID orgId) throws RouterException;

    /**
     * Resolves with the org's own model setting as the caller has just read it, in the transaction that read the
     * conflict, so that a router which keeps per-org settings need not read them in a transaction of its own.
     * The worker calls this form. A router with no per-org settings keeps the default, which ignores the setting.
     *
     * @param orgModelSetting the org's chosen {@code provider/model}, or null when the org has none
     * @throws RouterException when no model can serve this function for this org
     */
    default ResolvedModel resolve(String functionKey, UUID orgId, String orgModelSetting) throws RouterException {
        return resolve(functionKey, orgId);
    }

    /** Raised when a router cannot resolve a model. */
    final class RouterException extends Exception {
        public RouterException(String message) {
            super(message);
        }

        public RouterException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
