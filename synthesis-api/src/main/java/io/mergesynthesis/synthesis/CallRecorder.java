package io.mergesynthesis.synthesis;

/**
 * Where a synthesizer hands a paid call the moment it matters that it is on record before the attempt ends:
 * before it makes a second call (an escalation), so that a replica killed during the second call has lost at
 * most the call in flight, not the one already answered. The worker writes the call to the usage ledger at once
 * (as not stored); the attempt's end settles its outcome. The same call, with the same id, is still reported in
 * the attempt's result or failure.
 */
@FunctionalInterface
public interface CallRecorder {

    /** Records nothing: for callers that keep no ledger. */
    CallRecorder NONE = call -> { };

    /** Called on the synthesizer's thread; returns once the call is recorded, or recording failed (logged). */
    void answered(ProviderCall call);
}
