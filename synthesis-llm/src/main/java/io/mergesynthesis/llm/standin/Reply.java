package io.mergesynthesis.llm.standin;

import java.util.Map;

/** One HTTP answer the stand-in is about to send. */
record Reply(int status, Map<String, String> headers, String body) {
}
