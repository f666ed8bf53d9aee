package io.mergesynthesis.service.core;

import java.util.Map;

/**
 * How many of one org's conflicts are in each synthesis state and each inbox status. Every state and status is
 * a key, in the enums' order, zero when none is in it.
 */
public record InboxCounts(Map<SynthesisState, Long> bySynthesisState, Map<InboxStatus, Long> byInboxStatus,
                          long total) {
}
