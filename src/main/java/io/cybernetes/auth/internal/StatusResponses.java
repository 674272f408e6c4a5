package io.cybernetes.auth.internal;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;

/** Writes a Kubernetes Status for errors raised before any controller runs. */
final class StatusResponses {

    private StatusResponses() {
    }

    static void write(HttpServletResponse response, ApiException e) throws IOException {
        if (response.isCommitted()) {
            return;
        }
        response.setStatus(e.code());
        response.setContentType("application/json");
        response.getOutputStream().write(Json.MAPPER.writeValueAsBytes(e.toStatus()));
    }
}
