package io.mergesynthesis.service.worker;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.slf4j.LoggerFactory;

/**
 * What one logger logs at INFO and above while a test runs; safe to read while the pool's threads still log.
 *
 * <p>The logger is opened to INFO for the capture and given its own level back after: an application started
 * earlier in the same JVM configures logging from its test configuration (WARN at the root), which would
 * otherwise drop the INFO lines a test counts, depending on which test classes shared the fork.
 */
final class CapturedLog extends AppenderBase<ILoggingEvent> implements AutoCloseable {

    private final Logger logger;
    private final Level ownLevel;
    private final Queue<ILoggingEvent> events = new ConcurrentLinkedQueue<>();

    private CapturedLog(Logger logger) {
        this.logger = logger;
        this.ownLevel = logger.getLevel();
    }

    static CapturedLog of(String loggerName) {
        CapturedLog log = new CapturedLog((Logger) LoggerFactory.getLogger(loggerName));
        log.start();
        if (!log.logger.isInfoEnabled()) {
            log.logger.setLevel(Level.INFO);
        }
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
        logger.setLevel(ownLevel);
        stop();
    }
}
