package io.cybernetes.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Ordinary traffic logs no ERROR: every test fails when anything logged at ERROR while it
 * ran (the server in the same JVM, its controllers, the test itself), unless it says it
 * provokes one ({@link LogsErrors}). Registered for every test through the JUnit
 * extension service file, so no test can forget it.
 */
public final class NoErrorLogs implements BeforeEachCallback, AfterEachCallback {

    private static final String NAME = "no-error-logs";
    private static final Queue<String> ERRORS = new ConcurrentLinkedQueue<>();

    private static final class Collector extends AppenderBase<ILoggingEvent> {
        @Override
        protected void append(ILoggingEvent e) {
            if (e.getLevel().isGreaterOrEqual(Level.ERROR)) {
                ERRORS.add(e.getLoggerName() + ": " + e.getFormattedMessage()
                        + (e.getThrowableProxy() == null ? "" : " (" + e.getThrowableProxy().getClassName() + ": "
                        + e.getThrowableProxy().getMessage() + ")"));
            }
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        // Spring Boot resets logging when a context starts: attach again whenever it is missing
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext logging) {
            Logger root = logging.getLogger(Logger.ROOT_LOGGER_NAME);
            if (root.getAppender(NAME) == null) {
                Collector c = new Collector();
                c.setName(NAME);
                c.setContext(logging);
                c.start();
                root.addAppender(c);
            }
        }
        ERRORS.clear();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        List<String> logged = List.copyOf(ERRORS);
        ERRORS.clear();
        boolean allowed = context.getRequiredTestMethod().isAnnotationPresent(LogsErrors.class)
                || context.getRequiredTestClass().isAnnotationPresent(LogsErrors.class);
        if (!allowed && !logged.isEmpty() && context.getExecutionException().isEmpty()) {
            throw new AssertionError("logged at ERROR while the test ran: " + String.join("; ", logged));
        }
    }
}
