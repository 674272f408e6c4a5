package io.cybernetes.apiserver.internal;

import io.cybernetes.api.ApiException;

/**
 * The Status for an HTTP error code raised outside the API's own handlers (by the
 * servlet container, the security firewall, or a stray request to {@code /error}), with
 * the reason and wording kube-apiserver gives that code.
 */
final class ErrorStatus {

    private ErrorStatus() {
    }

    /** The Status for the code; {@code message} null takes the code's usual wording. */
    static ApiException of(int code, String message) {
        return switch (code) {
            case 400 -> ApiException.badRequest(message != null ? message : "the request could not be parsed");
            case 401 -> ApiException.unauthorized();
            case 403 -> ApiException.forbidden(message != null ? message : "forbidden");
            case 404 -> message != null ? ApiException.notFound(message) : ApiException.pathNotFound();
            case 405 -> ApiException.methodNotAllowed();
            case 408 -> ApiException.of(408, "Timeout", message != null ? message : "the request timed out");
            case 413 -> ApiException.of(413, "RequestEntityTooLarge", message != null ? message
                    : "Request entity too large");
            case 414 -> ApiException.of(414, "RequestURITooLong", message != null ? message : "the request URI is too"
                    + " long");
            case 415 -> ApiException.unsupportedMediaType();
            case 429 -> ApiException.tooManyRequests(message != null ? message : "Too many requests, please try again"
                    + " later.", 1);
            case 431 -> ApiException.of(431, "RequestHeaderFieldsTooLarge", message != null ? message
                    : "the request's headers are too large");
            case 503 -> ApiException.unavailable(message != null ? message : "the server is currently unable to handle"
                    + " the request", 1);
            default -> code >= 500 ? ApiException.internal(message != null ? message : "an error on the server")
                    : ApiException.of(code, "BadRequest", message != null ? message : "the request could not be served");
        };
    }
}
