package io.mergesynthesis.service.web;

import java.util.Arrays;
import java.util.Optional;

/**
 * The outcomes of the operator's own forms (names, failures, tokens), carried across their redirect as a code, as
 * {@link Notice} does for the inbox's: only these texts can ever be shown.
 */
enum OperatorNotice {
    NAMED("named", "Saved the org's name.", false),
    NAME_TAKEN("name_taken", "Not saved: another org already has that name (names are compared ignoring case).",
            true),
    INVALID_NAME("invalid_name", "Not saved: a name is 1 to 80 characters, with no control characters and no "
            + "space at either end.", true),
    REQUEUED("requeued", "Queued again: the workers will try it afresh, its attempts counted from zero.", false),
    REQUEUED_REASON("requeued_reason", "Queued again: every conflict that had failed with that reason.", false),
    NOT_MARKED("not_marked", "Not queued again: that conflict had not failed for good (someone may have tried it "
            + "again already).", true),
    INVALID_REASON("invalid_reason", "Not queued again: that is not one of the failure reasons.", true),
    REVOKED("revoked", "Revoked: the token is refused from now on, and its web sessions have ended.", false),
    ALREADY_REVOKED("already_revoked", "That token was already revoked: nothing changed.", false),
    NO_SUCH_TOKEN("no_such_token", "No token has that id: nothing changed.", true),
    INVALID_ORG("invalid_org", "Not done: that is not an org id (a UUID).", true),
    CANCEL_ASKED("cancel_asked", "Cancel asked: the provider hears of it at the batch's next poll; what it answered "
            + "before it stopped is kept, and what it canceled waits again.", false),
    BATCH_DONE("batch_done", "That batch is done: its results are stored, and nothing is left to cancel.", true),
    NO_SUCH_BATCH("no_such_batch", "No batch has that id: nothing changed.", true);

    private final String code;
    private final String text;
    private final boolean problem;

    OperatorNotice(String code, String text, boolean problem) {
        this.code = code;
        this.text = text;
        this.problem = problem;
    }

    String code() {
        return code;
    }

    /** The page's frame with this notice, or without any when {@code code} names none. */
    static Layout layout(String title, String code, PlatformAccess access) {
        Optional<OperatorNotice> notice = Arrays.stream(values()).filter(n -> n.code.equals(code)).findFirst();
        return notice.map(n -> new Layout(title, "operator", access.session(), n.text, n.problem))
                .orElse(Layout.of(title, "operator", access.session()));
    }
}
