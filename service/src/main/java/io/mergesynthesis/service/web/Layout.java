package io.mergesynthesis.service.web;

import io.mergesynthesis.service.session.WebSession;

/**
 * What every page's frame shows: the title, which part of the site is open, who is signed in, and a notice
 * from the action just taken. Notices are fixed texts chosen by code, or the service's own words about its
 * configuration, never text taken from a request.
 */
record Layout(String title, String section, WebSession session, String notice, boolean noticeIsProblem) {

    static Layout of(String title, String section, WebSession session) {
        return new Layout(title, section, session, null, false);
    }

    Layout withNotice(Notice notice) {
        return notice == null ? this : new Layout(title, section, session, notice.text(), notice.problem());
    }

    /**
     * A problem the service words itself from its own configuration (a model's name, a variable to set), shown on
     * the page that answers the form rather than carried across a redirect.
     */
    Layout withProblem(String text) {
        return new Layout(title, section, session, text, true);
    }

    boolean signedIn() {
        return session != null;
    }

    boolean platform() {
        return session != null && session.platform();
    }

    /** The signed-in person's name, for the header; null for a token's session. */
    String actorName() {
        return session == null || !session.actor().isPerson() ? null : session.actor().inWords();
    }

    String roleName() {
        return session == null ? null : session.role().wireName();
    }

    /** The org whose pages are shown, or null (a platform session that has chosen none). */
    String org() {
        return session == null || session.org() == null ? null : session.org().toString();
    }

    boolean readOnly() {
        return session != null && !session.mayChangeConflicts();
    }

    String formKey() {
        return session == null ? null : session.formKey();
    }

    boolean inboxOpen() {
        return "inbox".equals(section);
    }

    boolean usageOpen() {
        return "usage".equals(section);
    }

    boolean operatorOpen() {
        return "operator".equals(section);
    }
}
