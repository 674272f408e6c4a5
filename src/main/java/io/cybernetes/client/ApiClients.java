package io.cybernetes.client;

import io.cybernetes.api.LocalApi;
import io.cybernetes.client.internal.HttpApiClient;
import io.cybernetes.client.internal.LocalApiClient;

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

    /** A client of this process's API server, authenticated by the token (see {@link io.cybernetes.api.InProcessCredentials}). */
    public static ApiClient local(LocalApi api, String token) {
        return new LocalApiClient(api, token);
    }
}
