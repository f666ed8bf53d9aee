package io.mergesynthesis.service.logging;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;

/**
 * Puts a {@link RedactingAppender} in front of every appender the logging configuration attached, on every
 * logger. It works below the levels: a log-level task that raises a library's logger to TRACE changes what is
 * logged, never whether a secret in it is written out.
 */
public final class LogRedaction {

    private LogRedaction() {
    }

    /** Redacts what every appender of the running logging configuration writes; a second call changes nothing. */
    public static void install(SecretRedactor redactor) {
        ILoggerFactory factory = LoggerFactory.getILoggerFactory();
        if (!(factory instanceof LoggerContext context)) {
            throw new IllegalStateException("secrets are removed from logs through logback, but the logging "
                    + "backend is " + factory.getClass().getName());
        }
        for (Logger logger : context.getLoggerList()) {
            List<Appender<ILoggingEvent>> attached = new ArrayList<>();
            for (Iterator<Appender<ILoggingEvent>> it = logger.iteratorForAppenders(); it.hasNext(); ) {
                attached.add(it.next());
            }
            for (Appender<ILoggingEvent> appender : attached) {
                if (appender instanceof RedactingAppender) {
                    continue;
                }
                RedactingAppender redacting = new RedactingAppender(appender, redactor);
                redacting.start();
                // The old one goes first: a line lost while the logger has neither beats one written unredacted.
                logger.detachAppender(appender);
                logger.addAppender(redacting);
            }
        }
    }
}
