package io.cybernetes.auth.internal;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;

/** Writes a Kubernetes Status for errors raised before any controller runs. */
final class StatusResponses {

    private StatusResponses() {
    }

    /** The Status, indented when the request asks for it as the API's answers are. */
    static void write(HttpServletRequest request, HttpServletResponse response, ApiException e) throws IOException {
        if (response.isCommitted()) {
            return;
        }
        response.setStatus(e.code());
        response.setContentType("application/json");
        response.getOutputStream().write(Json.prettyRequested(request.getParameter("pretty"),
                request.getHeader("User-Agent")) ? Json.pretty(e.toJson()) : e.toBytes());
    }
}
