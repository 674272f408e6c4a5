package io.cybernetes.apiserver.internal;

import io.cybernetes.api.ApiException;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;

import java.io.IOException;

/**
 * Errors the servlet container answers by itself (a request line or header it cannot
 * parse, headers over the limit) as a Kubernetes {@code Status}, not the container's HTML
 * page: every answer a client gets is one it can read.
 */
final class StatusErrorValve extends ErrorReportValve {

    @Override
    protected void report(Request request, Response response, Throwable throwable) {
        int code = response.getStatus();
        if (code < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
            return;
        }
        ApiException e = ErrorStatus.of(code, null);
        try {
            response.setContentType("application/json");
            response.getOutputStream().write(e.toBytes());
            response.finishResponse();
        } catch (IOException | IllegalStateException gone) {
            // the client is gone, or the response could not be written: nothing more to tell anyone
        }
    }

}
