package io.mergesynthesis.standin;

import java.time.Instant;

/** What the stand-in's request window said to one request: let in or not, and what is left of it afterwards. */
public record Admission(boolean admitted, int limit, int remaining, Instant resetsAt) {
}
