package io.mergesynthesis.service.worker.attempt;

import io.mergesynthesis.synthesis.InvalidAnswerException;
import io.mergesynthesis.synthesis.ProviderCall;
import io.mergesynthesis.synthesis.SynthesisDeferred;
import io.mergesynthesis.synthesis.SynthesisException;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What the attempt history, which the conflict's org reads, says of a synthesizer's failure: the synthesizer's
 * {@link SynthesisException#summary() summary} when it gave one, else fixed words for the kind of failure, and the
 * provider's id for the failed request when there is one, so that an org can quote it to its operator. Never the
 * exception's message: that may hold a provider's own text, which can quote a key or the request; it goes to the
 * operator's log alone.
 */
final class SynthesisFailureText {

    static final String FAILED = "the synthesizer failed; the operator's log has the details";
    static final String UNEXPECTED = "the synthesizer failed unexpectedly; the operator's log has the details";
    static final String INVALID = "the answer was not a valid merge";

    /** The longest summary kept: a few words and a short excerpt of an answer at most. */
    private static final int MAX_SUMMARY = 300;

    /** A request id as providers write them; anything else is not shown. */
    private static final Pattern REQUEST_ID = Pattern.compile("[A-Za-z0-9._:-]{1,100}");

    private SynthesisFailureText() {
    }

    static String of(Throwable thrown) {
        if (!(thrown instanceof SynthesisException failed)) {
            return UNEXPECTED;
        }
        String text = failed.summary();
        if (text == null || text.isBlank()) {
            text = fixed(failed);
        } else if (text.length() > MAX_SUMMARY) {
            text = text.substring(0, MAX_SUMMARY) + "...";
        }
        String requestId = failedRequestId(failed.calls());
        return requestId == null ? text : text + " (provider request id " + requestId + ")";
    }

    private static String fixed(SynthesisException failed) {
        if (failed instanceof InvalidAnswerException) {
            return INVALID;
        }
        if (failed instanceof SynthesisDeferred deferred) {
            return switch (deferred.deferral()) {
                case RATE_LIMITED -> "the model provider asked to slow down; tried again later";
                case OVERLOADED -> "the model provider was overloaded; tried again later";
                case REFUSED_KEY -> "the model provider refused this service's key";
                case MISSING_KEY -> "this service has no key for the model provider; the operator must set one";
                case PROVIDER_SPEND_LIMIT -> "the model provider says this service's spend limit is reached";
                case AT_CONCURRENCY_LIMIT -> "this service was at its limit of calls to the model provider";
                case PROVIDER_OUTAGE -> "the model provider was unavailable for every conflict; tried again later";
                case OUTAGE_SUSPECTED -> "the model provider was unavailable; tried once more before it counts";
            };
        }
        return FAILED;
    }

    /** The id of the last call that failed, as its provider gave it, when it looks like one. */
    private static String failedRequestId(List<ProviderCall> calls) {
        for (int i = calls.size() - 1; i >= 0; i--) {
            ProviderCall call = calls.get(i);
            if (call.disposition() == ProviderCall.Disposition.FAILED
                    || call.disposition() == ProviderCall.Disposition.RATE_LIMITED) {
                String id = call.requestId();
                return id != null && REQUEST_ID.matcher(id).matches() ? id : null;
            }
        }
        return null;
    }
}
