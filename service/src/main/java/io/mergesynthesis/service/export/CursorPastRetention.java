package io.mergesynthesis.service.export;

/**
 * A reader's cursor stands before events that retention has dropped (docs/adr/0049): reading on from it would
 * pass over them in silence, so the reader is stopped and told. Starting again with no cursor reads every event
 * still kept, from the oldest; the few kept events the reader had already read before its cursor (those of the
 * month after the dropped ones that sort before its position) come again, each with its id.
 */
public final class CursorPastRetention extends RuntimeException {

    public CursorPastRetention(String cursor) {
        super("events after cursor " + cursor + " are no longer kept: retention dropped their month before this "
                + "reader read them. Start again without a cursor to read every event still kept, from the oldest");
    }
}
