package io.mergesynthesis.service.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.LoggerContextVO;
import java.util.List;
import java.util.Map;
import org.slf4j.Marker;
import org.slf4j.event.KeyValuePair;

/**
 * A logging event as it may be written: its message formatted and redacted, its arguments dropped (a layout
 * that formatted them again would bring the secrets back), its exception and key-value pairs redacted too.
 */
final class RedactedEvent implements ILoggingEvent {

    private final ILoggingEvent original;
    private final String message;
    private final IThrowableProxy throwable;
    private final List<KeyValuePair> keyValuePairs;

    private RedactedEvent(ILoggingEvent original, String message, IThrowableProxy throwable,
                          List<KeyValuePair> keyValuePairs) {
        this.original = original;
        this.message = message;
        this.throwable = throwable;
        this.keyValuePairs = keyValuePairs;
    }

    /** The event itself when nothing in it needed redacting, else a redacted copy. */
    static ILoggingEvent of(ILoggingEvent event, SecretRedactor redactor) {
        String formatted = event.getFormattedMessage();
        String message = redactor.redact(formatted);
        IThrowableProxy throwable = RedactedThrowable.of(event.getThrowableProxy(), redactor);
        List<KeyValuePair> pairs = redactPairs(event.getKeyValuePairs(), redactor);
        boolean unchanged = message == formatted || message.equals(formatted);
        if (unchanged && throwable == event.getThrowableProxy() && pairs == event.getKeyValuePairs()) {
            return event;
        }
        return new RedactedEvent(event, message, throwable, pairs);
    }

    private static List<KeyValuePair> redactPairs(List<KeyValuePair> pairs, SecretRedactor redactor) {
        if (pairs == null || pairs.isEmpty()) {
            return pairs;
        }
        boolean changed = false;
        List<KeyValuePair> out = new java.util.ArrayList<>(pairs.size());
        for (KeyValuePair pair : pairs) {
            String value = String.valueOf(pair.value);
            String redacted = redactor.redact(value);
            boolean secretKey = SecretRedactor.secretName(String.valueOf(pair.key));
            if (secretKey || !redacted.equals(value)) {
                out.add(new KeyValuePair(pair.key, secretKey ? SecretRedactor.MARK : redacted));
                changed = true;
            } else {
                out.add(pair);
            }
        }
        return changed ? List.copyOf(out) : pairs;
    }

    @Override
    public String getThreadName() {
        return original.getThreadName();
    }

    @Override
    public Level getLevel() {
        return original.getLevel();
    }

    @Override
    public String getMessage() {
        return message;
    }

    @Override
    public Object[] getArgumentArray() {
        return null;
    }

    @Override
    public String getFormattedMessage() {
        return message;
    }

    @Override
    public String getLoggerName() {
        return original.getLoggerName();
    }

    @Override
    public LoggerContextVO getLoggerContextVO() {
        return original.getLoggerContextVO();
    }

    @Override
    public IThrowableProxy getThrowableProxy() {
        return throwable;
    }

    @Override
    public StackTraceElement[] getCallerData() {
        return original.getCallerData();
    }

    @Override
    public boolean hasCallerData() {
        return original.hasCallerData();
    }

    @Override
    public List<Marker> getMarkerList() {
        return original.getMarkerList();
    }

    @Override
    public Map<String, String> getMDCPropertyMap() {
        return original.getMDCPropertyMap();
    }

    @SuppressWarnings("deprecation")
    @Override
    public Map<String, String> getMdc() {
        return original.getMdc();
    }

    @Override
    public long getTimeStamp() {
        return original.getTimeStamp();
    }

    @Override
    public int getNanoseconds() {
        return original.getNanoseconds();
    }

    @Override
    public java.time.Instant getInstant() {
        return original.getInstant();
    }

    @Override
    public long getSequenceNumber() {
        return original.getSequenceNumber();
    }

    @Override
    public List<KeyValuePair> getKeyValuePairs() {
        return keyValuePairs;
    }

    @Override
    public void prepareForDeferredProcessing() {
        original.prepareForDeferredProcessing();
    }
}
