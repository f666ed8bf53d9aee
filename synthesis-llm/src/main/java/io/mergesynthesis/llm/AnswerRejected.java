package io.mergesynthesis.llm;

/** Why a model's answer cannot become a merge for its conflict; becomes an {@code InvalidAnswerException}. */
final class AnswerRejected extends Exception {

    AnswerRejected(String message) {
        super(message, null, false, false);
    }
}
