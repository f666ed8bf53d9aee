package io.mergesynthesis.service.logging;

import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.StackTraceElementProxy;

/** An exception as it may be written: its message, and those of its causes and suppressed ones, redacted. */
final class RedactedThrowable implements IThrowableProxy {

    private final IThrowableProxy original;
    private final String message;
    private final String overridingMessage;
    private final IThrowableProxy cause;
    private final IThrowableProxy[] suppressed;

    private RedactedThrowable(IThrowableProxy original, String message, String overridingMessage,
                              IThrowableProxy cause, IThrowableProxy[] suppressed) {
        this.original = original;
        this.message = message;
        this.overridingMessage = overridingMessage;
        this.cause = cause;
        this.suppressed = suppressed;
    }

    /** The proxy itself when nothing in its chain needed redacting, else a redacted copy; null stays null. */
    static IThrowableProxy of(IThrowableProxy proxy, SecretRedactor redactor) {
        if (proxy == null) {
            return null;
        }
        return of(proxy, redactor, 0);
    }

    private static IThrowableProxy of(IThrowableProxy proxy, SecretRedactor redactor, int depth) {
        // A cyclic chain is cut where logback cuts it; the depth bound guards against one it did not mark.
        if (proxy == null || proxy.isCyclic() || depth > 64) {
            return proxy;
        }
        String message = redactor.redact(proxy.getMessage());
        String overriding = redactor.redact(proxy.getOverridingMessage());
        IThrowableProxy cause = of(proxy.getCause(), redactor, depth + 1);
        IThrowableProxy[] suppressed = proxy.getSuppressed();
        IThrowableProxy[] redactedSuppressed = suppressed;
        if (suppressed != null) {
            redactedSuppressed = new IThrowableProxy[suppressed.length];
            for (int i = 0; i < suppressed.length; i++) {
                redactedSuppressed[i] = of(suppressed[i], redactor, depth + 1);
            }
        }
        boolean same = java.util.Objects.equals(message, proxy.getMessage())
                && java.util.Objects.equals(overriding, proxy.getOverridingMessage()) && cause == proxy.getCause()
                && java.util.Arrays.equals(redactedSuppressed, suppressed);
        return same ? proxy : new RedactedThrowable(proxy, message, overriding, cause,
                redactedSuppressed);
    }

    @Override
    public String getMessage() {
        return message;
    }

    @Override
    public String getOverridingMessage() {
        return overridingMessage;
    }

    @Override
    public String getClassName() {
        return original.getClassName();
    }

    @Override
    public StackTraceElementProxy[] getStackTraceElementProxyArray() {
        return original.getStackTraceElementProxyArray();
    }

    @Override
    public int getCommonFrames() {
        return original.getCommonFrames();
    }

    @Override
    public IThrowableProxy getCause() {
        return cause;
    }

    @Override
    public IThrowableProxy[] getSuppressed() {
        return suppressed;
    }

    @Override
    public boolean isCyclic() {
        return original.isCyclic();
    }
}
