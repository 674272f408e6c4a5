package io.cybernetes.apiserver.internal;

import io.cybernetes.api.ApiException;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.tomcat.util.res.StringManager;

import java.io.IOException;

/**
 * Errors the servlet container answers by itself (a request line or header it cannot
 * parse, headers over the limit) as a Kubernetes {@code Status}, not the container's HTML
 * page: every answer a client gets is one it can read.
 */
final class StatusErrorValve extends ErrorReportValve {

    /** What the container's HTTP/1.1 parser says of headers over the limit (it answers them 400). */
    private static final String HEADERS_TOO_LARGE = StringManager.getManager("org.apache.coyote.http11")
            .getString("iib.requestheadertoolarge.error");

    private final int maxHeaderBytes;

    StatusErrorValve(int maxHeaderBytes) {
        this.maxHeaderBytes = maxHeaderBytes;
    }

    @Override
    protected void report(Request request, Response response, Throwable throwable) {
        int code = response.getStatus();
        if (code < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
            return;
        }
        ApiException e;
        if (code == 400 && throwable != null && HEADERS_TOO_LARGE.equals(throwable.getMessage())) {
            // as Go's server (kube-apiserver's) answers them
            response.setStatus(431);
            e = ErrorStatus.of(431, "the request's headers are larger than the server's limit of " + maxHeaderBytes
                    + " bytes");
        } else {
            e = ErrorStatus.of(code, null);
        }
        try {
            response.setContentType("application/json");
            response.getOutputStream().write(e.toBytes());
            response.finishResponse();
        } catch (IOException | IllegalStateException gone) {
            // the client is gone, or the response could not be written: nothing more to tell anyone
        }
    }

}
