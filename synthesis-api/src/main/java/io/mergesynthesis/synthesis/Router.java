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
