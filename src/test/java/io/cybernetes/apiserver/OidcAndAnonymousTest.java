package io.cybernetes.apiserver;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.interfaces.RSAPrivateKey;
import java.security.interfaces.RSAPublicKey;
import java.time.Instant;
import java.util.Date;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * OpenID Connect ID tokens checked against a JWKS this test serves itself, and the
 * anonymous switch: with it on, a request without credentials is
 * {@code system:anonymous} and is judged by RBAC instead of being refused outright.
 */
@TestPropertySource(properties = {
        "cybernetes.auth.data-dir=./target/test-data/oidc",
        "cybernetes.auth.anonymous=true",
        "cybernetes.auth.oidc.issuer-url=https://idp.example.test",
        "cybernetes.auth.oidc.client-id=cybernetes",
        "cybernetes.auth.oidc.username-claim=email",
        "cybernetes.auth.oidc.groups-prefix=oidc:",
        "spring.datasource.url=jdbc:h2:mem:oidc;DB_CLOSE_DELAY=-1"})
class OidcAndAnonymousTest extends ApiTestSupport {

    static final KeyPair IDP_KEY = rsa();
    static final HttpServer JWKS = jwks();

    static KeyPair rsa() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
            g.initialize(2048);
            return g.generateKeyPair();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static HttpServer jwks() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            byte[] body = new JWKSet(new RSAKey.Builder((RSAPublicKey) IDP_KEY.getPublic()).keyID("idp-1").build())
                    .toString().getBytes(StandardCharsets.UTF_8);
            server.createContext("/keys", exchange -> {
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
                exchange.close();
            });
            server.start();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @DynamicPropertySource
    static void jwksUri(DynamicPropertyRegistry registry) {
        registry.add("cybernetes.auth.oidc.jwks-uri", () -> "http://127.0.0.1:" + JWKS.getAddress().getPort() + "/keys");
    }

    @AfterAll
    static void stopJwks() {
        JWKS.stop(0);
    }

    static String idToken(KeyPair key, String kid, String issuer, String audience, Instant expires, String email,
                          List<String> groups) throws Exception {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().issuer(issuer).subject("user-123").audience(audience)
                .issueTime(Date.from(Instant.now().minusSeconds(5))).expirationTime(Date.from(expires))
                .claim("email", email).claim("email_verified", true).claim("groups", groups).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(kid).build(), claims);
        jwt.sign(new RSASSASigner((RSAPrivateKey) key.getPrivate()));
        return jwt.serialize();
    }

    private Response whoami(String bearer) {
        return callAs(bearer, "POST", AuthenticationTest.WHOAMI, "application/json", AuthenticationTest.WHOAMI_BODY,
                "application/json");
    }

    @Test
    void anIdTokenFromTheIssuerAuthenticatesWithItsEmailAndGroups() throws Exception {
        Response me = whoami(idToken(IDP_KEY, "idp-1", "https://idp.example.test", "cybernetes",
                Instant.now().plusSeconds(300), "dana@example.test", List.of("platform", "sre")));
        assertThat(me.code()).as(me.body()).isEqualTo(201);
        assertThat(me.text("status.userInfo.username")).isEqualTo("dana@example.test");
        assertThat(me.json().path("status").path("userInfo").path("groups").toString())
                .isEqualTo("[\"oidc:platform\",\"oidc:sre\",\"system:authenticated\"]");
    }

    @Test
    void idTokensThatDoNotCheckOutAreRefused() throws Exception {
        Instant later = Instant.now().plusSeconds(300);
        assertThat(whoami(idToken(IDP_KEY, "idp-1", "https://idp.example.test", "someone-else", later, "d@x", List.of()))
                .code()).as("wrong audience").isEqualTo(401);
        assertThat(whoami(idToken(IDP_KEY, "idp-1", "https://idp.example.test", "cybernetes",
                Instant.now().minusSeconds(600), "d@x", List.of())).code()).as("expired").isEqualTo(401);
        assertThat(whoami(idToken(rsa(), "idp-1", "https://idp.example.test", "cybernetes", later, "d@x", List.of()))
                .code()).as("signed by another key").isEqualTo(401);
        assertThat(whoami(idToken(IDP_KEY, "idp-1", "https://other.example.test", "cybernetes", later, "d@x", List.of()))
                .code()).as("another issuer").isEqualTo(401);
    }

    @Test
    void withAnonymousOnARequestWithoutCredentialsIsSystemAnonymous() {
        Response pods = callAs(null, "GET", "/api/v1/namespaces/default/pods", null, null, "application/json");
        assertThat(pods.code()).isEqualTo(403);
        assertThat(pods.text("message")).isEqualTo("pods is forbidden: User \"system:anonymous\" cannot list resource"
                + " \"pods\" in API group \"\" in the namespace \"default\"");
        // system:public-info-viewer is bound to system:unauthenticated
        assertThat(callAs(null, "GET", "/version", null, null, null).code()).isEqualTo(200);
        // a bad token is still 401, anonymous or not
        assertThat(callAs("garbage", "GET", "/api/v1/namespaces", null, null, null).code()).isEqualTo(401);
    }

    @Test
    void aBearerTokenAfterTwoSpacesIsIgnoredWithAWarningAsKubeApiserverDoes() {
        // the token is the second word: after two spaces it is empty, and an empty token is no credential at all
        Response ignored = callWithHeaders(null, "GET", "/api/v1/namespaces/default/pods", null, null,
                "application/json", "Authorization", "Bearer  " + token());
        assertThat(ignored.code()).as(ignored.body()).isEqualTo(403);
        assertThat(ignored.text("message")).startsWith("pods is forbidden: User \"system:anonymous\"");
        assertThat(ignored.headers().allValues("Warning")).containsExactly("299 - \"the provided Authorization header"
                + " contains extra space before the bearer token, and is ignored\"");
        Response once = callWithHeaders(null, "GET", "/api/v1/namespaces/default/pods", null, null,
                "application/json", "Authorization", "Bearer " + token());
        assertThat(once.code()).isEqualTo(200);
        assertThat(once.headers().allValues("Warning")).isEmpty();
    }
}
