package io.cybernetes.apiserver.internal;

import io.cybernetes.apiserver.internal.handlers.RequestReader;
import io.cybernetes.api.Json;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ContentCachingResponseWrapper;
import tools.jackson.core.JacksonException;

import java.io.IOException;

/**
 * Indents JSON answers for people, as kube-apiserver does for {@code ?pretty=true} and
 * for curl, Wget and browsers ({@link Json#prettyRequested}): the answer is taken whole,
 * indented by two spaces and sent. Streams (watches) and the server's pages go out as they
 * are. It runs once a request's body is in, so requests whose body is still arriving are
 * never held here.
 */
final class PrettyJsonFilter extends OncePerRequestFilter {

    @Override
    protected boolean shouldNotFilterAsyncDispatch() {
        return false;
    }

    /** The API's own paths; the server's pages and their files are sent as they are. */
    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        String path = request.getRequestURI();
        boolean api = path.equals("/api") || path.startsWith("/api/") || path.equals("/apis") || path.startsWith("/apis/");
        return !api || RequestReader.isTrue(request.getParameter("watch")) || MaxInFlightFilter.isStream(request)
                || !Json.prettyRequested(request.getParameter("pretty"), request.getHeader("User-Agent"));
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        ContentCachingResponseWrapper buffered = new ContentCachingResponseWrapper(response);
        chain.doFilter(request, buffered);
        String type = buffered.getContentType();
        byte[] body = buffered.getContentAsByteArray();
        if (type != null && type.startsWith("application/json") && body.length > 0) {
            try {
                byte[] indented = Json.pretty(Json.MAPPER.readTree(body));
                buffered.resetBuffer();
                buffered.getOutputStream().write(indented);
            } catch (JacksonException notOneJsonValue) {
                // sent as it was made
            }
        }
        buffered.copyBodyToResponse();
    }
}
