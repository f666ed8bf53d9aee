package io.mergesynthesis.llm;

import io.mergesynthesis.synthesis.SuggestedMerge;

/**
 * One pass's valid answer: the merge it makes and where its call sits in the attempt's list of calls, so that
 * a later pass can mark it discarded.
 */
record PassAnswer(SuggestedMerge merge, double confidence, int callIndex) {
}
