/**
 * Who is asking: authenticators (bearer tokens, x509 client certificates) that turn a
 * request into a {@link io.cybernetes.auth.UserInfo}, and the cluster's PKI.
 */
package io.cybernetes.auth;
