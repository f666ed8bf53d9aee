package io.mergesynthesis.llm;

import java.time.Duration;

/**
 * How a second pass waits for its model's pause or pace to end. Tests pass one that moves their hand-moved clock
 * and ticker instead of sleeping.
 */
interface Sleeper {

    Sleeper SYSTEM = wait -> Thread.sleep(wait.toMillis(), wait.toNanosPart() % 1_000_000);

    void sleep(Duration wait) throws InterruptedException;
}
