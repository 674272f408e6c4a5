package io.cybernetes.apiserver.internal;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The servlet container's error dispatch, as a Status: an error raised before any API
 * handler answered (a filter's {@code sendError}, an exception out of a filter) reaches
 * the client worded as kube-apiserver words its code, and {@code /error} asked for
 * directly is a path like any other this server does not serve (404).
 */
@RestController
class ErrorPathController implements ErrorController {

    @RequestMapping("/error")
    ResponseEntity<byte[]> error(HttpServletRequest request, HttpServletResponse response) {
        if (response.isCommitted()) {
            // a stream whose client went away: its answer began long ago, and there is no one to tell
            return null;
        }
        Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        Object message = request.getAttribute(RequestDispatcher.ERROR_MESSAGE);
        if (!(code instanceof Integer c)) {
            return ApiErrorHandler.status(ErrorStatus.of(404, null));
        }
        String text = message instanceof String m && !m.isBlank() ? m : null;
        return ApiErrorHandler.status(ErrorStatus.of(c, c >= 500 ? null : text));
    }
}
