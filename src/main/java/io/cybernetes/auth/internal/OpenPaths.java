package io.cybernetes.auth.internal;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.security.web.util.matcher.RequestMatcher;

import java.util.List;

/** The paths served to anyone (health, version, API docs): each path itself and everything under it. */
final class OpenPaths implements RequestMatcher {

    private final List<String> paths;

    OpenPaths(List<String> paths) {
        this.paths = List.copyOf(paths);
    }

    @Override
    public boolean matches(HttpServletRequest request) {
        String path = request.getRequestURI();
        return path.equals("/") || paths.stream().anyMatch(p -> path.equals(p) || path.startsWith(p + "/")
                || path.startsWith(p + "."));
    }
}
