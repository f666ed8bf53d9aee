package io.mergesynthesis.llm;

import io.mergesynthesis.standin.StandInProvider;

/** A client class as the module rules forbid it: it reaches into the stand-in provider. */
final class StandInBorrowingSample {

    private StandInBorrowingSample() {
    }

    static String baseUrl(StandInProvider standIn) {
        return standIn.anthropicBaseUrl();
    }
}
