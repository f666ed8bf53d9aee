package io.mergesynthesis.llm;

import io.mergesynthesis.synthesis.SuggestedMerge;

/**
 * One pass's well-formed answer: the merge it makes, where its call sits in the attempt's list of calls (so that
 * a later pass can mark it discarded or refused), and the answer as the model gave it, without any code fence,
 * to send back to a model that is asked to repair it.
 */
record PassAnswer(SuggestedMerge merge, double confidence, int callIndex, String answerJson) {
}
