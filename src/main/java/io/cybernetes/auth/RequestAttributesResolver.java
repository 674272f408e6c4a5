package io.cybernetes.auth;

import jakarta.servlet.http.HttpServletRequest;

/**
 * Turns an HTTP request into the attributes an authorizer decides on. The API server
 * provides it, since it owns what its paths mean.
 */
public interface RequestAttributesResolver {

    RequestAttributes resolve(HttpServletRequest request, UserInfo user);
}
