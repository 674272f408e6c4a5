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

    /** Asked of every request: no stream, and no prefix built anew for each path. */
    @Override
    public boolean matches(HttpServletRequest request) {
        String path = request.getRequestURI();
        if (path.equals("/")) {
            return true;
        }
        for (String p : paths) {
            if (path.startsWith(p) && (path.length() == p.length() || path.charAt(p.length()) == '/'
                    || path.charAt(p.length()) == '.')) {
                return true;
            }
        }
        return false;
    }
}
