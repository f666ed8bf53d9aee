package io.mergesynthesis.service.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.UnsynchronizedAppenderBase;

/** Stands in front of one configured appender and hands it every event with its secrets removed. */
final class RedactingAppender extends UnsynchronizedAppenderBase<ILoggingEvent> {

    private final Appender<ILoggingEvent> delegate;
    private final SecretRedactor redactor;

    RedactingAppender(Appender<ILoggingEvent> delegate, SecretRedactor redactor) {
        this.delegate = delegate;
        this.redactor = redactor;
        setName(delegate.getName());
        setContext(delegate.getContext());
    }

    Appender<ILoggingEvent> delegate() {
        return delegate;
    }

    @Override
    protected void append(ILoggingEvent event) {
        delegate.doAppend(RedactedEvent.of(event, redactor));
    }

    @Override
    public void start() {
        if (!delegate.isStarted()) {
            delegate.start();
        }
        super.start();
    }

    @Override
    public void stop() {
        super.stop();
        delegate.stop();
    }
}
