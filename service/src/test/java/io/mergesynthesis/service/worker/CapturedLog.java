package io.mergesynthesis.service.worker;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.slf4j.LoggerFactory;

/** What one logger logs while a test runs; safe to read while the pool's threads still log. */
final class CapturedLog extends AppenderBase<ILoggingEvent> implements AutoCloseable {

    private final Logger logger;
    private final Queue<ILoggingEvent> events = new ConcurrentLinkedQueue<>();

    private CapturedLog(Logger logger) {
        this.logger = logger;
    }

    static CapturedLog of(String loggerName) {
        CapturedLog log = new CapturedLog((Logger) LoggerFactory.getLogger(loggerName));
        log.start();
        log.logger.addAppender(log);
        return log;
    }

    static CapturedLog of(Class<?> loggerClass) {
        return of(loggerClass.getName());
    }

    @Override
    protected void append(ILoggingEvent event) {
        events.add(event);
    }

    List<ILoggingEvent> events() {
        return List.copyOf(events);
    }

    List<ILoggingEvent> at(Level level) {
        return events.stream().filter(event -> event.getLevel() == level).toList();
    }

    boolean any(String fragment) {
        return events.stream().anyMatch(event -> event.getFormattedMessage().contains(fragment));
    }

    long count(String fragment) {
        return events.stream().filter(event -> event.getFormattedMessage().contains(fragment)).count();
    }

    @Override
    public void close() {
        logger.detachAppender(this);
        stop();
    }
}
