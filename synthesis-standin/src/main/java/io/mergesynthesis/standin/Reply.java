package io.mergesynthesis.standin;

import java.util.HashMap;
import java.util.Map;

/** One HTTP answer the stand-in is about to send. */
public record Reply(int status, Map<String, String> headers, String body) {

    /** The same answer with {@code more} headers; a header already set keeps its value. */
    Reply withHeaders(Map<String, String> more) {
        if (more.isEmpty()) {
            return this;
        }
        Map<String, String> all = new HashMap<>(more);
        all.putAll(headers);
        return new Reply(status, all, body);
    }
}
