package io.cybernetes.apiserver;

import com.sun.net.httpserver.HttpServer;
import io.cybernetes.api.Json;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Without a jwks-uri, the signing keys are found through the issuer's discovery document. */
@TestPropertySource(properties = {
        "cybernetes.auth.data-dir=./target/test-data/oidc-discovery",
        "cybernetes.auth.oidc.client-id=cybernetes",
        "cybernetes.auth.oidc.username-claim=email",
        "spring.datasource.url=jdbc:h2:mem:oidc-discovery;DB_CLOSE_DELAY=-1"})
class OidcDiscoveryTest extends ApiTestSupport {

    static final HttpServer IDP = idp();

    static HttpServer idp() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            String issuer = "http://127.0.0.1:" + server.getAddress().getPort();
            byte[] discovery = Json.MAPPER.writeValueAsBytes(Json.object().put("issuer", issuer)
                    .put("jwks_uri", issuer + "/keys"));
            byte[] keys = new com.nimbusds.jose.jwk.JWKSet(new com.nimbusds.jose.jwk.RSAKey.Builder(
                    (java.security.interfaces.RSAPublicKey) OidcAndAnonymousTest.IDP_KEY.getPublic()).keyID("idp-1")
                    .build()).toString().getBytes(StandardCharsets.UTF_8);
            server.createContext("/.well-known/openid-configuration", ex -> {
                ex.getResponseHeaders().add("Content-Type", "application/json");
                ex.sendResponseHeaders(200, discovery.length);
                ex.getResponseBody().write(discovery);
                ex.close();
            });
            server.createContext("/keys", ex -> {
                ex.getResponseHeaders().add("Content-Type", "application/json");
                ex.sendResponseHeaders(200, keys.length);
                ex.getResponseBody().write(keys);
                ex.close();
            });
            server.start();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @DynamicPropertySource
    static void issuer(DynamicPropertyRegistry registry) {
        registry.add("cybernetes.auth.oidc.issuer-url", () -> "http://127.0.0.1:" + IDP.getAddress().getPort());
    }

    @AfterAll
    static void stopIdp() {
        IDP.stop(0);
    }

    @Test
    void anIdTokenIsCheckedWithTheKeysTheDiscoveryDocumentNames() throws Exception {
        String issuer = "http://127.0.0.1:" + IDP.getAddress().getPort();
        Response me = callAs(OidcAndAnonymousTest.idToken(OidcAndAnonymousTest.IDP_KEY, "idp-1", issuer, "cybernetes",
                Instant.now().plusSeconds(300), "erin@example.test", List.of("ops")), "POST", AuthenticationTest.WHOAMI,
                "application/json", AuthenticationTest.WHOAMI_BODY, "application/json");
        assertThat(me.code()).as(me.body()).isEqualTo(201);
        assertThat(me.text("status.userInfo.username")).isEqualTo("erin@example.test");
    }
}
