package io.mergesynthesis.service.core;

/** A point in the event stream: the writing transaction's id and the event id. {@code (0, 0)} is the start. */
public record EventPosition(long txId, long id) {
    public static final EventPosition START = new EventPosition(0, 0);
}
