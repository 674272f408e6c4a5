package io.cybernetes.client;

import io.cybernetes.client.internal.HttpApiClient;

import javax.net.ssl.SSLContext;
import java.net.URI;

/** Where ApiClients come from. */
public final class ApiClients {

    private ApiClients() {
    }

    /** A client over HTTP(S) to {@code base} (for example {@code https://127.0.0.1:6443}) with a bearer token. */
    public static ApiClient http(URI base, SSLContext ssl, String token) {
        return new HttpApiClient(base, ssl, token);
    }
}
