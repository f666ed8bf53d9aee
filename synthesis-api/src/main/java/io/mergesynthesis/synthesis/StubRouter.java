package io.mergesynthesis.synthesis;

import java.util.UUID;

/** Resolves every function, for every org, to the stub model. */
public final class StubRouter implements Router {

    public static final String PROVIDER = "stub";
    public static final String MODEL = "stub-deterministic-v1";

    @Override
    public ResolvedModel resolve(String functionKey, UUID orgId) throws RouterException {
        if (!MERGE_SYNTHESIS.equals(functionKey)) {
            throw new RouterException("no model is configured for function " + functionKey);
        }
        return new ResolvedModel(functionKey, PROVIDER, MODEL);
    }
}
