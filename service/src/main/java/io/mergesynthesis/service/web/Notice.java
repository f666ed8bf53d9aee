package io.mergesynthesis.service.web;

import java.util.Arrays;
import java.util.Optional;

/**
 * The outcome of a form, carried across the redirect that follows it as a code in the URL ({@code ?notice=}).
 * Only these texts can ever be shown, so a crafted link can show nothing but one of them.
 */
enum Notice {
    ACKNOWLEDGED("acknowledged", "Acknowledged.", false),
    ALREADY_ACKNOWLEDGED("already_acknowledged", "Already acknowledged: nothing changed.", false),
    RESOLVED("resolved", "Resolved.", false),
    ALREADY_RESOLVED_SAME("already_resolved", "Already resolved this way: nothing changed.", false),
    LOST_RACE("lost_race", "Not saved: someone else resolved this conflict first. Their resolution is shown below "
            + "and is final.", true),
    NO_MERGE_YET("no_merge_yet", "Not saved: there is no suggested merge to accept yet. Resolve it as manual or "
            + "rejected, or wait for the suggestion.", true),
    INVALID_RESOLUTION("invalid_resolution", "Not saved: choose a resolution.", true),
    INVALID_NOTE("invalid_note", "Not saved: the note is longer than 2,000 characters or holds characters that "
            + "cannot be stored.", true),
    REQUEUED("requeued", "Queued again: the workers will try this conflict afresh, its attempts counted from zero. "
            + "The earlier attempts stay in the history below.", false),
    NOT_MARKED("not_marked", "Not queued again: only a conflict whose synthesis failed for good can be tried again, "
            + "and this one's state is shown below.", true),
    SETTINGS_SAVED("settings_saved", "Saved the org's model and budget.", false),
    INVALID_MODEL("invalid_model", "Not saved: that model is not one of the configured models.", true),
    INVALID_BUDGET("invalid_budget", "Not saved: the budget must be a number of US dollars, 0 or more, with at most "
            + "6 decimals; leave it empty for no budget.", true),
    INVALID_ORG("invalid_org", "Not saved: that is not an org id (a UUID).", true),
    FORM_EXPIRED("form_expired", "That form was not accepted (it came from another page or an old session). "
            + "Please try again.", true);

    private final String code;
    private final String text;
    private final boolean problem;

    Notice(String code, String text, boolean problem) {
        this.code = code;
        this.text = text;
        this.problem = problem;
    }

    String code() {
        return code;
    }

    String text() {
        return text;
    }

    boolean problem() {
        return problem;
    }

    static Optional<Notice> fromCode(String code) {
        return Arrays.stream(values()).filter(n -> n.code.equals(code)).findFirst();
    }
}
