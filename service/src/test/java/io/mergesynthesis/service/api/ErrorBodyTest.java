package io.mergesynthesis.service.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ErrorBodyTest {

    private static List<ErrorBody.FieldProblem> problems(int count) {
        return IntStream.range(0, count)
                .mapToObj(i -> new ErrorBody.FieldProblem("field" + i, "is not a field of a conflict"))
                .toList();
    }

    @Test
    void listsEveryProblemUpToTheCap() {
        ErrorBody body = (ErrorBody) ErrorBody.response(422, "invalid conflict report: nothing was stored",
                problems(ErrorBody.MOST_PROBLEMS_LISTED)).getEntity();

        assertThat(body.errors()).hasSize(ErrorBody.MOST_PROBLEMS_LISTED);
        assertThat(body.message()).isEqualTo("invalid conflict report: nothing was stored");
    }

    @Test
    void beyondTheCapListsTheFirstAndSaysHowManyThereWere() {
        ErrorBody body = (ErrorBody) ErrorBody.response(422, "invalid conflict report: nothing was stored",
                problems(20_000)).getEntity();

        assertThat(body.errors()).hasSize(ErrorBody.MOST_PROBLEMS_LISTED);
        assertThat(body.errors().get(0).field()).isEqualTo("field0");
        assertThat(body.errors().get(ErrorBody.MOST_PROBLEMS_LISTED - 1).field())
                .isEqualTo("field" + (ErrorBody.MOST_PROBLEMS_LISTED - 1));
        assertThat(body.message()).isEqualTo("invalid conflict report: nothing was stored "
                + "(the first 100 of 20000 problems are listed)");
    }
}
