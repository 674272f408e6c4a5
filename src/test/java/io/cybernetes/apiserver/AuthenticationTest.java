package io.cybernetes.apiserver;

import io.cybernetes.api.Json;
import io.cybernetes.api.X509Certificates;
import io.cybernetes.api.X509Certificates.Purpose;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;

import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509KeyManager;
import java.io.StringReader;
import java.math.BigInteger;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every way in, and every way a credential is refused: ServiceAccount tokens from the
 * TokenRequest subresource (expired, for another audience, forged, orphaned by a deleted
 * account), client certificates from the cluster CA and from another CA, static tokens.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuthenticationTest extends ApiTestSupport {

    static final String NS = "tokens";
    static final String WHOAMI = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
    static final String WHOAMI_BODY = "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"SelfSubjectReview\"}";

    @BeforeAll
    void accounts() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        for (String sa : List.of("robot", "doomed")) {
            assertThat(post("/api/v1/namespaces/" + NS + "/serviceaccounts", "{\"apiVersion\":\"v1\",\"kind\":"
                    + "\"ServiceAccount\",\"metadata\":{\"name\":\"" + sa + "\"}}").code()).isIn(201, 409);
        }
    }

    private String requestToken(String sa, String spec) {
        Response r = post("/api/v1/namespaces/" + NS + "/serviceaccounts/" + sa + "/token",
                "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"TokenRequest\",\"spec\":" + spec + "}");
        assertThat(r.code()).as(r.body()).isEqualTo(201);
        assertThat(r.text("status.expirationTimestamp")).isNotEmpty();
        return r.text("status.token");
    }

    private Response whoami(String bearer) {
        return callAs(bearer, "POST", WHOAMI, "application/json", WHOAMI_BODY, "application/json");
    }

    @Test
    void aServiceAccountTokenAuthenticatesAsItsAccount() {
        String token = requestToken("robot", "{}");
        eventually(() -> assertThat(whoami(token).code()).isEqualTo(201));
        Response me = whoami(token);
        assertThat(me.text("status.userInfo.username")).isEqualTo("system:serviceaccount:tokens:robot");
        assertThat(me.json().path("status").path("userInfo").path("groups").toString()).isEqualTo(
                "[\"system:serviceaccounts\",\"system:serviceaccounts:tokens\",\"system:authenticated\"]");
        Response review = post("/apis/authentication.k8s.io/v1/tokenreviews", "{\"apiVersion\":\"authentication.k8s.io/v1\","
                + "\"kind\":\"TokenReview\",\"spec\":{\"token\":\"" + token + "\"}}");
        assertThat(review.json().path("status").path("authenticated").asBoolean()).isTrue();
        assertThat(review.text("status.user.username")).isEqualTo("system:serviceaccount:tokens:robot");
    }

    private Response tokenRequest(String sa, String spec) {
        return post("/api/v1/namespaces/" + NS + "/serviceaccounts/" + sa + "/token",
                "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"TokenRequest\",\"spec\":" + spec + "}");
    }

    private static String boundTo(String kind, String name, String uid) {
        return "{\"boundObjectRef\":{\"apiVersion\":\"v1\",\"kind\":\"" + kind + "\",\"name\":\"" + name + "\""
                + (uid == null ? "" : ",\"uid\":\"" + uid + "\"") + "}}";
    }

    private static Map<String, Object> claims(String token) {
        return Json.MAPPER.readValue(java.util.Base64.getUrlDecoder().decode(token.split("\\.")[1]), Map.class);
    }

    @Test
    void aPodBoundTokenCarriesItsPodAndNodeAndDiesWithThePod() {
        assertThat(post("/api/v1/nodes", "{\"metadata\":{\"name\":\"token-node\"}}").code()).isIn(201, 409);
        String nodeUid = get("/api/v1/nodes/token-node").text("metadata.uid");
        Response pod = post("/api/v1/namespaces/" + NS + "/pods", "{\"metadata\":{\"name\":\"bound\"},\"spec\":{"
                + "\"serviceAccountName\":\"robot\",\"nodeName\":\"token-node\",\"automountServiceAccountToken\":false,"
                + "\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}");
        assertThat(pod.code()).as(pod.body()).isEqualTo(201);
        String podUid = pod.text("metadata.uid");

        Response missing = tokenRequest("robot", boundTo("Pod", "no-such-pod", null));
        assertThat(missing.code()).isEqualTo(404);
        assertThat(missing.text("message")).isEqualTo("pods \"no-such-pod\" not found");
        Response otherAccount = tokenRequest("doomed", boundTo("Pod", "bound", null));
        assertThat(otherAccount.code()).isEqualTo(400);
        assertThat(otherAccount.text("message")).isEqualTo(
                "cannot bind token for serviceaccount \"doomed\" to pod running with serviceaccount \"robot\"");
        Response staleUid = tokenRequest("robot", boundTo("Pod", "bound", "0000-old"));
        assertThat(staleUid.code()).isEqualTo(409);
        assertThat(staleUid.text("message")).isEqualTo("Operation cannot be fulfilled on Pod \"bound\": the UID in the"
                + " bound object reference (0000-old) does not match the UID in record. The object might have been"
                + " deleted and then recreated");
        Response configMap = tokenRequest("robot", boundTo("ConfigMap", "x", null));
        assertThat(configMap.code()).isEqualTo(400);
        assertThat(configMap.text("message")).isEqualTo("cannot bind token to object of type /v1, Kind=ConfigMap");

        Response issued = tokenRequest("robot", boundTo("Pod", "bound", podUid));
        assertThat(issued.code()).as(issued.body()).isEqualTo(201);
        String token = issued.text("status.token");
        @SuppressWarnings("unchecked")
        Map<String, Object> k8s = (Map<String, Object>) claims(token).get("kubernetes.io");
        assertThat(k8s.get("pod")).isEqualTo(Map.of("name", "bound", "uid", podUid));
        assertThat(k8s.get("node")).isEqualTo(Map.of("name", "token-node", "uid", nodeUid));
        eventually(() -> assertThat(whoami(token).code()).isEqualTo(201));
        JsonNode extra = whoami(token).json().path("status").path("userInfo").path("extra");
        assertThat(extra.path("authentication.kubernetes.io/pod-name").toString()).isEqualTo("[\"bound\"]");
        assertThat(extra.path("authentication.kubernetes.io/pod-uid").toString()).isEqualTo("[\"" + podUid + "\"]");
        assertThat(extra.path("authentication.kubernetes.io/node-name").toString()).isEqualTo("[\"token-node\"]");

        assertThat(call("DELETE", "/api/v1/namespaces/" + NS + "/pods/bound", "application/json",
                "{\"gracePeriodSeconds\":0}").code()).isEqualTo(200);
        eventually(() -> assertThat(whoami(token).code()).as("the pod is gone").isEqualTo(401));
        // a pod of the same name made again is another pod: the token stays dead
        assertThat(post("/api/v1/namespaces/" + NS + "/pods", "{\"metadata\":{\"name\":\"bound\"},\"spec\":{"
                + "\"serviceAccountName\":\"robot\",\"automountServiceAccountToken\":false,"
                + "\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}").code()).isEqualTo(201);
        String fresh = tokenRequest("robot", boundTo("Pod", "bound", null)).text("status.token");
        eventually(() -> assertThat(whoami(fresh).code()).isEqualTo(201));
        assertThat(whoami(token).code()).isEqualTo(401);
    }

    @Test
    void aSecretBoundTokenDiesWithTheSecret() {
        Response secret = post("/api/v1/namespaces/" + NS + "/secrets", "{\"metadata\":{\"name\":\"anchor\"}}");
        assertThat(secret.code()).as(secret.body()).isEqualTo(201);
        Response issued = tokenRequest("robot", boundTo("Secret", "anchor", null));
        assertThat(issued.code()).as(issued.body()).isEqualTo(201);
        String token = issued.text("status.token");
        eventually(() -> assertThat(whoami(token).code()).isEqualTo(201));
        assertThat(delete("/api/v1/namespaces/" + NS + "/secrets/anchor").code()).isEqualTo(200);
        eventually(() -> assertThat(whoami(token).code()).isEqualTo(401));
    }

    @Test
    void aTokenRequestForLessThanTenMinutesIsInvalid() {
        Response r = post("/api/v1/namespaces/" + NS + "/serviceaccounts/robot/token",
                "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"TokenRequest\",\"spec\":{\"expirationSeconds\":10}}");
        assertThat(r.code()).isEqualTo(422);
        assertThat(r.text("message")).contains("spec.expirationSeconds", "may not specify a duration less than 10 minutes");
        assertThat(post("/api/v1/namespaces/" + NS + "/serviceaccounts/nobody/token", "{}").code()).isEqualTo(404);
    }

    @Test
    void aTokenForAnotherAudienceIsRefused() {
        String token = requestToken("robot", "{\"audiences\":[\"vault\"]}");
        assertThat(whoami(token).code()).isEqualTo(401);
    }

    @Test
    void anExpiredTokenIsRefused() throws Exception {
        String token = sign(serviceAccountKey(), Instant.now().minusSeconds(3600), Instant.now().minusSeconds(60));
        assertThat(whoami(token).code()).isEqualTo(401);
        String fresh = sign(serviceAccountKey(), Instant.now(), Instant.now().plusSeconds(600));
        eventually(() -> assertThat(whoami(fresh).code()).as("the same claims, unexpired").isEqualTo(201));
    }

    @Test
    void aTokenWithAForgedSignatureIsRefused() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        String token = sign(g.generateKeyPair().getPrivate(), Instant.now(), Instant.now().plusSeconds(600));
        assertThat(whoami(token).code()).isEqualTo(401);
        String tampered = requestToken("robot", "{}");
        String[] parts = tampered.split("\\.");
        String otherPayload = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(
                new String(java.util.Base64.getUrlDecoder().decode(parts[1])).replace("robot", "doomed").getBytes());
        assertThat(whoami(parts[0] + "." + otherPayload + "." + parts[2]).code()).isEqualTo(401);
    }

    @Test
    void aTokenOfADeletedServiceAccountIsRefused() {
        String token = requestToken("doomed", "{}");
        eventually(() -> assertThat(whoami(token).code()).isEqualTo(201));
        assertThat(delete("/api/v1/namespaces/" + NS + "/serviceaccounts/doomed").code()).isEqualTo(200);
        eventually(() -> assertThat(whoami(token).code()).isEqualTo(401));
        // an account of the same name made again has a new uid: the old token stays dead
        assertThat(post("/api/v1/namespaces/" + NS + "/serviceaccounts", "{\"apiVersion\":\"v1\",\"kind\":"
                + "\"ServiceAccount\",\"metadata\":{\"name\":\"doomed\"}}").code()).isEqualTo(201);
        String again = requestToken("doomed", "{}");
        eventually(() -> assertThat(whoami(again).code()).isEqualTo(201));
        assertThat(whoami(token).code()).isEqualTo(401);
    }

    @Test
    void everyNamespaceGetsADefaultServiceAccount() {
        String ns = "with-default-sa";
        assertThat(createNamespace(ns).code()).isIn(201, 409);
        eventually(() -> assertThat(get("/api/v1/namespaces/" + ns + "/serviceaccounts/default").code()).isEqualTo(200));
        assertThat(delete("/api/v1/namespaces/" + ns + "/serviceaccounts/default").code()).isEqualTo(200);
        eventually(() -> assertThat(get("/api/v1/namespaces/" + ns + "/serviceaccounts/default").code()).isEqualTo(200));
    }

    @Test
    void staticTokensFromTheTokensFileAuthenticate() {
        Response me = whoami("victor-token");
        assertThat(me.text("status.userInfo.username")).isEqualTo("victor");
        assertThat(me.text("status.userInfo.uid")).isEqualTo("u-victor");
        assertThat(me.json().path("status").path("userInfo").path("groups").toString())
                .isEqualTo("[\"auditors\",\"people\",\"system:authenticated\"]");
        assertThat(whoami("no-such-token").code()).isEqualTo(401);
        Response none = callAs(null, "GET", "/api/v1/namespaces", null, null, "application/json");
        assertThat(none.code()).isEqualTo(401);
        assertThat(none.text("reason")).isEqualTo("Unauthorized");
        assertThat(callAs(null, "GET", "/healthz", null, null, null).code()).isEqualTo(200);
        assertThat(callAs(null, "GET", "/version", null, null, null).code()).isEqualTo(200);
    }

    @Test
    void theDataDirectoryIsTheOwnersAlone() throws Exception {
        Path data = endpoints.adminKubeconfig().getParent();
        assertThat(get("/api/v1/namespaces").code()).isEqualTo(200); // something for the audit log
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(data))).isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(data.resolve("pki"))))
                .isEqualTo("rwx------");
        for (String file : List.of("admin.kubeconfig", "pki/ca.crt", "pki/ca.key", "pki/admin.token", "audit.log")) {
            eventually(() -> assertThat(data.resolve(file)).exists());
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(data.resolve(file))))
                    .as(file).isEqualTo("rw-------");
        }
    }

    @Test
    void theBearerTokenIsTheSecondWordOfTheHeaderAsKubernetesReadsIt() {
        assertThat(callWithHeaders(null, "GET", "/api/v1/namespaces", null, null, "application/json",
                "Authorization", "Bearer  " + token()).code()).as("two spaces: an empty token").isEqualTo(401);
        assertThat(callWithHeaders(null, "GET", "/api/v1/namespaces", null, null, "application/json",
                "Authorization", "bearer " + token() + " trailing words").code()).isEqualTo(200);
        assertThat(callWithHeaders(null, "GET", "/api/v1/namespaces", null, null, "application/json",
                "Authorization", "Basic " + token()).code()).isEqualTo(401);
    }

    @Test
    void aClientCertificateFromTheClusterCaAuthenticatesAndOneFromAnotherCaDoesNot() throws Exception {
        Path pki = endpoints.adminKubeconfig().getParent().resolve("pki");
        X509Certificate ca = cert(Files.readString(pki.resolve("ca.crt")));
        HttpResponse<String> admin = overHttps(cert(Files.readString(pki.resolve("admin.crt"))),
                key(Files.readString(pki.resolve("admin.key"))), ca);
        assertThat(admin.statusCode()).as(admin.body()).isEqualTo(201);
        assertThat(admin.body()).contains("\"username\":\"admin\"", "system:masters");

        KeyPair kp = KeyPairGenerator.getInstance("RSA").generateKeyPair();
        X509Certificate rogue = selfSignedAdmin(kp);
        HttpResponse<String> refused = overHttps(rogue, kp.getPrivate(), ca);
        assertThat(refused.statusCode()).isEqualTo(401);
        assertThat(refused.body()).contains("\"reason\":\"Unauthorized\"");
    }

    @Test
    void theClientCertificateIsTriedBeforeTheBearerTokenAsKubeApiserverDoes() throws Exception {
        Path pki = endpoints.adminKubeconfig().getParent().resolve("pki");
        X509Certificate ca = cert(Files.readString(pki.resolve("ca.crt")));
        X509Certificate adminCert = cert(Files.readString(pki.resolve("admin.crt")));
        PrivateKey adminKey = key(Files.readString(pki.resolve("admin.key")));
        String robot = requestToken("robot", "{}");
        // a valid certificate decides, whatever token comes with it: another user's or none that is valid
        for (String token : List.of(robot, "not-a-token")) {
            HttpResponse<String> both = overHttps(adminCert, adminKey, ca, token);
            assertThat(both.statusCode()).as(both.body()).isEqualTo(201);
            assertThat(both.body()).contains("\"username\":\"admin\"");
        }
        // a certificate that authenticates nobody leaves the token its chance
        KeyPair kp = KeyPairGenerator.getInstance("RSA").generateKeyPair();
        X509Certificate rogue = selfSignedAdmin(kp);
        HttpResponse<String> tokenAfterRogue = overHttps(rogue, kp.getPrivate(), ca, robot);
        assertThat(tokenAfterRogue.statusCode()).as(tokenAfterRogue.body()).isEqualTo(201);
        assertThat(tokenAfterRogue.body()).contains("\"username\":\"system:serviceaccount:" + NS + ":robot\"");
        assertThat(overHttps(rogue, kp.getPrivate(), ca, "not-a-token").statusCode()).isEqualTo(401);
    }

    @Test
    void aClusterCertificateNotMeantForClientsIsUnauthorizedAndOneWithoutACommonNameNamesNobody() throws Exception {
        Path pki = endpoints.adminKubeconfig().getParent().resolve("pki");
        X509Certificate ca = cert(Files.readString(pki.resolve("ca.crt")));
        PrivateKey caKey = key(Files.readString(pki.resolve("ca.key")));
        String robot = requestToken("robot", "{}");
        KeyPair kp = KeyPairGenerator.getInstance("RSA").generateKeyPair();
        // signed by the cluster CA for serving only: taken in the handshake, refused by the authenticator (401,
        // as kube-apiserver's x509 check of the client-auth usage answers), and the token still has its chance
        X509Certificate serving = signed("CN=admin,O=system:masters", kp, ca, caKey, Purpose.SERVER);
        HttpResponse<String> refused = overHttps(serving, kp.getPrivate(), ca);
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(401);
        assertThat(Json.MAPPER.readTree(refused.body()).path("reason").asString()).isEqualTo("Unauthorized");
        HttpResponse<String> tokenAfter = overHttps(serving, kp.getPrivate(), ca, robot);
        assertThat(tokenAfter.statusCode()).as(tokenAfter.body()).isEqualTo(201);
        assertThat(tokenAfter.body()).contains("\"username\":\"system:serviceaccount:" + NS + ":robot\"");
        // with the client-auth usage it is the admin's
        X509Certificate client = signed("CN=admin,O=system:masters", kp, ca, caKey, Purpose.CLIENT);
        assertThat(overHttps(client, kp.getPrivate(), ca).body()).contains("\"username\":\"admin\"");
        // without a common name it names nobody and is no error: as if none were sent (an open path is open)
        X509Certificate nameless = signed("O=system:masters", kp, ca, caKey, Purpose.CLIENT);
        assertThat(overHttps(nameless, kp.getPrivate(), ca).statusCode()).isEqualTo(401);
        assertThat(overHttps(nameless, kp.getPrivate(), ca, robot).body())
                .contains("\"username\":\"system:serviceaccount:" + NS + ":robot\"");
        assertThat(overHttps(nameless, kp.getPrivate(), ca, null, "GET", "/version").statusCode()).isEqualTo(200);
        assertThat(overHttps(serving, kp.getPrivate(), ca, null, "GET", "/version").statusCode()).isEqualTo(401);
    }

    /** A certificate for CN admin, O system:masters, signed by its own key rather than the cluster CA. */
    private static X509Certificate selfSignedAdmin(KeyPair kp) throws Exception {
        X500Name name = new X500Name("CN=admin,O=system:masters");
        return new JcaX509CertificateConverter().getCertificate(new JcaX509v3CertificateBuilder(name, BigInteger.TEN,
                Date.from(Instant.now().minusSeconds(60)), Date.from(Instant.now().plusSeconds(3600)), name,
                kp.getPublic()).build(new JcaContentSignerBuilder("SHA256withRSA").build(kp.getPrivate())));
    }

    /** A certificate for {@code subject} issued by the cluster CA for the purpose, as the cluster PKI issues them. */
    private static X509Certificate signed(String subject, KeyPair kp, X509Certificate ca, PrivateKey caKey,
                                          Purpose purpose) {
        return X509Certificates.sign(subject, kp.getPublic(), caKey, ca, Duration.ofHours(1), purpose, List.of());
    }

    private HttpResponse<String> overHttps(X509Certificate cert, PrivateKey key, X509Certificate ca) throws Exception {
        return overHttps(cert, key, ca, null);
    }

    private HttpResponse<String> overHttps(X509Certificate cert, PrivateKey key, X509Certificate ca, String token)
            throws Exception {
        return overHttps(cert, key, ca, token, "POST", WHOAMI);
    }

    /**
     * A request over HTTPS presenting {@code cert} whichever issuers the server names (as curl does; the JDK's
     * key manager would send none from another CA).
     */
    private HttpResponse<String> overHttps(X509Certificate cert, PrivateKey key, X509Certificate ca, String token,
                                           String method, String path) throws Exception {
        X509KeyManager mine = new X509ExtendedKeyManager() {
            @Override
            public String[] getClientAliases(String keyType, Principal[] issuers) {
                return new String[] {"me"};
            }

            @Override
            public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
                return "me";
            }

            @Override
            public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
                return "me";
            }

            @Override
            public String[] getServerAliases(String keyType, Principal[] issuers) {
                return null;
            }

            @Override
            public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
                return null;
            }

            @Override
            public X509Certificate[] getCertificateChain(String alias) {
                return new X509Certificate[] {cert};
            }

            @Override
            public PrivateKey getPrivateKey(String alias) {
                return key;
            }
        };
        KeyStore ts = KeyStore.getInstance("PKCS12");
        ts.load(null, null);
        ts.setCertificateEntry("ca", ca);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ts);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(new KeyManager[] {mine}, tmf.getTrustManagers(), null);
        HttpClient client = HttpClient.newBuilder().sslContext(ctx).build();
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + endpoints.httpsPort()
                + path)).header("Content-Type", "application/json").method(method, method.equals("POST")
                ? HttpRequest.BodyPublishers.ofString(WHOAMI_BODY) : HttpRequest.BodyPublishers.noBody());
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private String sign(PrivateKey key, Instant issued, Instant expires) throws Exception {
        Response sa = get("/api/v1/namespaces/" + NS + "/serviceaccounts/robot");
        JWTClaimsSet claims = new JWTClaimsSet.Builder()
                .issuer("https://kubernetes.default.svc.cluster.local")
                .subject("system:serviceaccount:" + NS + ":robot")
                .audience("https://kubernetes.default.svc.cluster.local")
                .issueTime(Date.from(issued)).notBeforeTime(Date.from(issued)).expirationTime(Date.from(expires))
                .claim("kubernetes.io", Map.of("namespace", NS, "serviceaccount", Map.of("name", "robot",
                        "uid", sa.text("metadata.uid"))))
                .build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.RS256), claims);
        jwt.sign(new RSASSASigner(key));
        return jwt.serialize();
    }

    private PrivateKey serviceAccountKey() throws Exception {
        return key(Files.readString(endpoints.adminKubeconfig().getParent().resolve("pki/sa.key")));
    }

    private static PrivateKey key(String pem) throws Exception {
        try (PEMParser p = new PEMParser(new StringReader(pem))) {
            return new JcaPEMKeyConverter().getPrivateKey((PrivateKeyInfo) p.readObject());
        }
    }

    private static X509Certificate cert(String pem) throws Exception {
        return (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new java.io.ByteArrayInputStream(pem.getBytes()));
    }
}
