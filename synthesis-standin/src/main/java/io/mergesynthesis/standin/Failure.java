package io.mergesynthesis.standin;

/** A way the stand-in can misbehave on purpose. */
public enum Failure {
    /** HTTP 500 with the protocol's server error body. */
    SERVER_ERROR,
    /** HTTP 529 with an {@code overloaded_error}, as Anthropic answers when it is overloaded. */
    OVERLOADED,
    /** HTTP 429 with {@code retry-after: 1}. */
    RATE_LIMITED,
    /** HTTP 429 whose error says the account's quota is used up. */
    SPEND_LIMIT,
    /** HTTP 200 whose answer is prose, not JSON. */
    NOT_JSON,
    /** HTTP 200 whose answer names a policy id the conflict does not have. */
    UNKNOWN_POLICY,
    /** HTTP 200 whose answer lacks its rationale. */
    MISSING_FIELD
}
