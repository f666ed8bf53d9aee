package io.mergesynthesis.service.logging;

import ch.qos.logback.access.jetty.RequestLogImpl;
import ch.qos.logback.core.status.Status;
import java.util.regex.Pattern;
import org.eclipse.jetty.server.RequestLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the logback-access request log says about itself at start, through our log instead of its own dump of
 * every status to standard output; only warnings and errors, less two false alarms of its version check. The
 * versions Maven resolves are the pair Dropwizard's BOM names (logback-core 1.5.26, logback-access 2.0.9, built
 * against it), yet the check reads the jetty12 module's version from the class it runs in, Dropwizard's
 * subclass (so it "finds" Dropwizard's version, or this jar's once shaded), and it looks for the expected
 * logback-core version in a file logback-access 2.0.9 ships under another name (so it expects "?").
 */
final class RequestLogStatus {

    private static final Logger LOG = LoggerFactory.getLogger(RequestLogStatus.class);

    private static final Pattern FALSE_ALARMS = Pattern.compile(
            "Versions of logback-access-common and logback-access-jetty12 are different!"
                    + "|Expected version of logback-core is \\? but found .*");

    private RequestLogStatus() {
    }

    /** Stops the request log printing its statuses when it starts; call before it starts. */
    static void quiet(RequestLog requestLog) {
        if (requestLog instanceof RequestLogImpl logback) {
            logback.setQuiet(true);
        }
    }

    /** Logs the warnings and errors the request log recorded while starting, less the false alarms above. */
    static void report(RequestLog requestLog) {
        if (!(requestLog instanceof RequestLogImpl logback)) {
            return;
        }
        for (Status status : logback.getStatusManager().getCopyOfStatusList()) {
            if (status.getLevel() < Status.WARN || FALSE_ALARMS.matcher(status.getMessage()).matches()) {
                continue;
            }
            if (status.getLevel() >= Status.ERROR) {
                LOG.error("request log: {}", status.getMessage(), status.getThrowable());
            } else {
                LOG.warn("request log: {}", status.getMessage(), status.getThrowable());
            }
        }
    }
}
