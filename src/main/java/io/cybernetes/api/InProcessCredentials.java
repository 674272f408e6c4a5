package io.cybernetes.api;

import java.util.List;

/**
 * Credentials for the components that run inside this process (controller manager,
 * scheduler, node agents), as kube-apiserver gives its loopback clients a token: a
 * random bearer token, known only to this process, that the authenticator maps to the
 * user and groups named here. The authentication module implements it.
 */
public interface InProcessCredentials {

    /** A bearer token for the user (the same one on every call for the same user and groups). */
    String tokenFor(String user, List<String> groups);
}
