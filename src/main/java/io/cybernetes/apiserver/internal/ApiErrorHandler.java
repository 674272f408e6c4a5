package io.cybernetes.apiserver.internal;

import io.cybernetes.api.ApiException;
import io.cybernetes.store.StorageException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.HttpMediaTypeNotAcceptableException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.async.AsyncRequestNotUsableException;
import org.springframework.web.servlet.resource.NoResourceFoundException;

/** Turns every failure into a Kubernetes {@code Status}; unexpected ones are logged here, never sent as traces. */
@RestControllerAdvice
class ApiErrorHandler {

    private static final Logger log = LoggerFactory.getLogger(ApiErrorHandler.class);

    @ExceptionHandler(ApiException.class)
    ResponseEntity<byte[]> api(ApiException e) {
        return status(e);
    }

    @ExceptionHandler(HttpRequestMethodNotSupportedException.class)
    ResponseEntity<byte[]> method(HttpRequestMethodNotSupportedException e) {
        return status(ApiException.methodNotAllowed());
    }

    @ExceptionHandler(HttpMediaTypeNotSupportedException.class)
    ResponseEntity<byte[]> mediaType(HttpMediaTypeNotSupportedException e) {
        return status(ApiException.unsupportedMediaType());
    }

    @ExceptionHandler(HttpMediaTypeNotAcceptableException.class)
    ResponseEntity<byte[]> notAcceptable(HttpMediaTypeNotAcceptableException e) {
        return status(ApiException.notAcceptable("only the following media types are accepted: application/json,"
                + " application/yaml"));
    }

    @ExceptionHandler(NoResourceFoundException.class)
    ResponseEntity<byte[]> noResource(NoResourceFoundException e) {
        return status(ApiException.pathNotFound());
    }

    /** The client went away mid-response: there is no one to answer, and nothing went wrong here. */
    @ExceptionHandler(AsyncRequestNotUsableException.class)
    void clientGone(AsyncRequestNotUsableException e) {
        log.debug("client disconnected: {}", e.getMessage());
    }

    @ExceptionHandler(Exception.class)
    ResponseEntity<byte[]> unexpected(Exception e) {
        return status(unexpectedFailure(e));
    }

    /**
     * An unexpected failure, logged here with its trace, as the 500 Status the client gets:
     * it says that the server failed, not how its insides did (no class names, no trace).
     * The database out of reach is no surprise: 503 with Retry-After, which the store has
     * already logged once for the whole outage.
     */
    static ApiException unexpectedFailure(Exception e) {
        if (e instanceof StorageException se && se.code() == StorageException.Code.UNAVAILABLE) {
            return ApiException.unavailable(se.getMessage(), 1);
        }
        if (e instanceof StorageException se && se.code() == StorageException.Code.UNREADABLE) {
            // the store says what is wrong (a value no configured key decrypts): the client is told, as by Kubernetes
            log.warn("request failed: {}", se.getMessage());
            return ApiException.internal(se.getMessage());
        }
        log.error("request failed unexpectedly", e);
        return ApiException.internal("the server could not complete the request; its log has the details");
    }

    static ResponseEntity<byte[]> status(ApiException e) {
        ResponseEntity.BodyBuilder b = ResponseEntity.status(e.code()).contentType(MediaType.APPLICATION_JSON);
        if (e.retryAfterSeconds() != null) {
            b.header(HttpHeaders.RETRY_AFTER, Integer.toString(e.retryAfterSeconds()));
        }
        return b.body(e.toBytes());
    }
}
