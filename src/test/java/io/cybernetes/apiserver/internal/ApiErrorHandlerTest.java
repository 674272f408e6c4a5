package io.cybernetes.apiserver.internal;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.testing.LogsErrors;
import org.junit.jupiter.api.Test;
import org.springframework.http.ResponseEntity;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

class ApiErrorHandlerTest {

    private final ApiErrorHandler handler = new ApiErrorHandler();

    @Test
    @LogsErrors
    void anUnexpectedFailureIsA500StatusNamingNoInternals() {
        ResponseEntity<byte[]> r = handler.unexpected(new IllegalStateException("boom\n\tat some.Class.method(Class.java:1)"));
        assertThat(r.getStatusCode().value()).isEqualTo(500);
        JsonNode status = Json.MAPPER.readTree(r.getBody());
        assertThat(status.get("kind").asString()).isEqualTo("Status");
        assertThat(status.get("reason").asString()).isEqualTo("InternalError");
        assertThat(status.get("message").asString()).isEqualTo("Internal error occurred: the server could not complete"
                + " the request; its log has the details");
    }

    @Test
    void unavailableAndThrottledAnswersCarryRetryAfter() {
        ResponseEntity<byte[]> unavailable = handler.api(ApiException.unavailable("the database is unavailable", 1));
        assertThat(unavailable.getStatusCode().value()).isEqualTo(503);
        assertThat(unavailable.getHeaders().getFirst("Retry-After")).isEqualTo("1");
        assertThat(Json.MAPPER.readTree(unavailable.getBody()).get("reason").asString()).isEqualTo("ServiceUnavailable");
        ResponseEntity<byte[]> throttled = handler.api(ApiException.tooManyRequests("slow down", 2));
        assertThat(throttled.getStatusCode().value()).isEqualTo(429);
        assertThat(throttled.getHeaders().getFirst("Retry-After")).isEqualTo("2");
    }
}
