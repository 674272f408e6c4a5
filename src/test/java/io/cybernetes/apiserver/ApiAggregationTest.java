package io.cybernetes.apiserver;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.cybernetes.api.CertificateAuthority;
import io.cybernetes.api.Json;
import io.cybernetes.api.X509Certificates;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The aggregation layer with an extension API server of the test's own (HTTPS, client
 * certificates required, trusting the request-header CA the server publishes): its
 * APIService becomes Available, its group appears in discovery and kubectl reaches it with
 * the user in the front-proxy headers; RBAC is checked here first; a server that goes or a
 * caBundle that does not match makes the APIService unavailable with kube-apiserver's
 * reasons; built-in groups and metrics.k8s.io are local APIServices.
 */
class ApiAggregationTest extends ApiTestSupport {

    static final String GROUP = "example.cybernetes.io";
    static final String NS = "ext-system";
    static final String APISERVICES = "/apis/apiregistration.k8s.io/v1/apiservices";

    @TempDir
    Path dir;

    private HttpsServer server;
    private final List<String> seen = new CopyOnWriteArrayList<>();

    private Kubectl kubectl() {
        return new Kubectl(endpoints.adminKubeconfig(), dir);
    }

    @AfterEach
    void stopServer() {
        if (server != null) {
            server.stop(0);
        }
        delete(APISERVICES + "/v1." + GROUP);
    }

    /** A CA of the extension server's own, its serving certificate for the service's name. */
    private static CertificateAuthority newCa() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        KeyPair kp = g.generateKeyPair();
        X509Certificate ca = X509Certificates.sign("CN=widgets-ca", kp.getPublic(), kp.getPrivate(), null,
                Duration.ofDays(1), null, List.of());
        return CertificateAuthority.of(ca, kp.getPrivate());
    }

    /** Starts the extension server: client certificates checked against the published request-header CA. */
    private int startServer(CertificateAuthority ca) throws Exception {
        JsonNode auth = get("/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication").json();
        String requestHeaderCa = auth.path("data").path("requestheader-client-ca-file").asString();
        assertThat(auth.path("data").path("requestheader-allowed-names").asString()).contains("front-proxy-client");
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("rh", CertificateFactory.getInstance("X.509").generateCertificate(
                new ByteArrayInputStream(requestHeaderCa.getBytes(StandardCharsets.UTF_8))));
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ca.issue("CN=widgets", X509Certificates.Purpose.SERVER, List.of("widgets." + NS + ".svc"),
                Duration.ofDays(1)), new char[0]);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(tls) {
            @Override
            public void configure(HttpsParameters params) {
                var p = tls.getDefaultSSLParameters();
                p.setNeedClientAuth(true);
                params.setSSLParameters(p);
            }
        });
        server.createContext("/apis/" + GROUP + "/v1", this::serve);
        server.start();
        return server.getAddress().getPort();
    }

    private void serve(HttpExchange ex) throws IOException {
        String client = ((HttpsExchange) ex).getSSLSession().getPeerPrincipal().getName();
        String user = ex.getRequestHeaders().getFirst("X-Remote-User");
        List<String> groups = ex.getRequestHeaders().getOrDefault("X-Remote-Group", List.of());
        seen.add(ex.getRequestMethod() + " " + ex.getRequestURI().getPath() + " as " + user + " via " + client);
        String path = ex.getRequestURI().getPath();
        ObjectNode body = Json.object();
        if (path.equals("/apis/" + GROUP + "/v1")) {
            body.put("kind", "APIResourceList").put("apiVersion", "v1").put("groupVersion", GROUP + "/v1");
            ObjectNode r = body.putArray("resources").addObject();
            r.put("name", "widgets").put("singularName", "widget").put("namespaced", true).put("kind", "Widget");
            r.putArray("verbs").add("get").add("list");
            r.putArray("shortNames").add("wd");
        } else {
            body.put("kind", "WidgetList").put("apiVersion", GROUP + "/v1");
            body.putObject("metadata").put("resourceVersion", "1");
            ObjectNode w = body.putArray("items").addObject();
            w.put("apiVersion", GROUP + "/v1").put("kind", "Widget");
            w.putObject("metadata").put("name", "gear").put("namespace", "default")
                    .put("creationTimestamp", "2026-01-01T00:00:00Z");
            w.putObject("spec").put("user", user).put("groups", String.join(",", groups)).put("client", client);
        }
        byte[] bytes = Json.MAPPER.writeValueAsBytes(body);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(200, bytes.length);
        ex.getResponseBody().write(bytes);
        ex.close();
    }

    private Response apiService(String caBundle, int port) {
        return post(APISERVICES, """
                {"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1.%s"},
                 "spec":{"group":"%s","version":"v1","groupPriorityMinimum":1000,"versionPriority":15,
                 "caBundle":"%s","service":{"namespace":"%s","name":"widgets","port":%d}}}"""
                .formatted(GROUP, GROUP, caBundle, NS, port));
    }

    private static String bundle(CertificateAuthority ca) {
        return Base64.getEncoder().encodeToString(X509Certificates.pem(ca.caCertificate())
                .getBytes(StandardCharsets.UTF_8));
    }

    private JsonNode available() {
        for (JsonNode c : get(APISERVICES + "/v1." + GROUP).json().path("status").path("conditions")) {
            if ("Available".equals(c.path("type").asString())) {
                return c;
            }
        }
        return Json.object();
    }

    private void externalNameService() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        assertThat(post("/api/v1/namespaces/" + NS + "/services", """
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"widgets"},
                 "spec":{"type":"ExternalName","externalName":"localhost"}}""").code()).isIn(201, 409);
    }

    @Test
    void anExtensionServerIsDiscoveredAndReachedWithTheUsersIdentity() throws Exception {
        CertificateAuthority ca = newCa();
        int port = startServer(ca);
        externalNameService();
        assertThat(apiService(bundle(ca), port).code()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(available().path("status").asString()).isEqualTo("True");
            assertThat(available().path("reason").asString()).isEqualTo("Passed");
        });
        Kubectl.Run services = kubectl().run("get", "apiservices");
        assertThat(services.out()).containsPattern("NAME\\s+SERVICE\\s+AVAILABLE\\s+AGE")
                .containsPattern("v1\\." + GROUP.replace(".", "\\.") + "\\s+" + NS + "/widgets\\s+True")
                .containsPattern("v1beta1\\.metrics\\.k8s\\.io\\s+Local\\s+True")
                .containsPattern("v1\\.apps\\s+Local\\s+True");

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(kubectl()
                .run("api-resources", "--api-group=" + GROUP).out())
                .containsPattern("widgets\\s+wd\\s+" + GROUP.replace(".", "\\.") + "/v1\\s+true\\s+Widget"));
        Kubectl.Run got = kubectl().run("get", "widgets." + GROUP, "-n", "default", "-o", "json");
        assertThat(got.exit()).as(got.err()).isZero();
        assertThat(Json.MAPPER.readTree(got.out()).path("items").size()).as(got.out() + got.err() + seen).isOne();
        JsonNode spec = Json.MAPPER.readTree(got.out()).path("items").get(0).path("spec");
        assertThat(spec.path("user").asString()).isNotEmpty();
        assertThat(spec.path("groups").asString()).contains("system:authenticated");
        assertThat(spec.path("client").asString()).isEqualTo("CN=front-proxy-client");
        assertThat(get("/apis/" + GROUP).json().path("preferredVersion").path("version").asString()).isEqualTo("v1");
        assertThat(get("/apis/" + GROUP + "/v1").json().path("resources").size()).as(get("/apis/" + GROUP + "/v1").toString()).isOne();
        assertThat(get("/apis/" + GROUP + "/v1").json().path("resources").get(0).path("name").asString())
                .isEqualTo("widgets");

        // RBAC decides here, before the extension server hears of it
        int before = seen.size();
        Response refused = callAs("carol-token", "GET", "/apis/" + GROUP + "/v1/namespaces/default/widgets", null, null,
                "application/json");
        assertThat(refused.code()).isEqualTo(403);
        assertThat(refused.text("message")).isEqualTo("widgets." + GROUP + " is forbidden: User \"carol\" cannot list"
                + " resource \"widgets\" in API group \"" + GROUP + "\" in the namespace \"default\"");
        assertThat(seen.stream().skip(before).filter(s -> s.contains("as carol"))).isEmpty();

        server.stop(0);
        server = null;
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(available().path("status").asString()).isEqualTo("False");
            assertThat(available().path("reason").asString()).isEqualTo("FailedDiscoveryCheck");
            assertThat(available().path("message").asString()).startsWith("failing or missing response from https://"
                    + "localhost:" + port + "/apis/" + GROUP + "/v1: ");
        });
        // the group stays, its requests answered 503 as kube-aggregator answers them
        Response gone = get("/apis/" + GROUP + "/v1/namespaces/default/widgets");
        assertThat(gone.code()).isEqualTo(503);
        assertThat(gone.body()).isEqualTo("service unavailable\n");
        assertThat(get("/apis/" + GROUP).code()).isEqualTo(200);
        assertThat(kubectl().run("get", "apiservices", "v1." + GROUP).out()).contains("False (FailedDiscoveryCheck)");
        Kubectl.Run stale = kubectl().run("get", "widgets." + GROUP, "-n", "default");
        assertThat(stale.exit()).isNotZero();
    }

    @Test
    void aServerTheCaBundleDoesNotVouchForIsNotAvailable() throws Exception {
        int port = startServer(newCa());
        externalNameService();
        assertThat(apiService(bundle(newCa()), port).code()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(available().path("reason").asString()).isEqualTo("FailedDiscoveryCheck");
            assertThat(available().path("status").asString()).isEqualTo("False");
        });
        assertThat(seen).isEmpty();
        delete(APISERVICES + "/v1." + GROUP);
        Response missing = post(APISERVICES, """
                {"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1.%s"},
                 "spec":{"group":"%s","version":"v1","groupPriorityMinimum":1000,"versionPriority":15,
                 "insecureSkipTLSVerify":true,"service":{"namespace":"%s","name":"nowhere"}}}"""
                .formatted(GROUP, GROUP, NS));
        assertThat(missing.code()).isEqualTo(201);
        assertThat(missing.json().path("spec").path("service").path("port").asInt()).isEqualTo(443);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(available().path("reason").asString()).isEqualTo("ServiceNotFound");
            assertThat(available().path("message").asString()).isEqualTo("service/nowhere in \"" + NS
                    + "\" is not present");
        });
    }

    @Test
    void badApiServicesAreRefusedInKubeAggregatorsWords() {
        Response misnamed = post(APISERVICES, """
                {"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v2.wrong.io"},
                 "spec":{"group":"right.io","version":"v1","groupPriorityMinimum":1000,"versionPriority":15,
                 "insecureSkipTLSVerify":true,"caBundle":"YQ==","service":{"namespace":"a","name":"b"}}}""");
        assertThat(misnamed.code()).isEqualTo(422);
        assertThat(misnamed.text("message")).contains("metadata.name: Invalid value: \"v2.wrong.io\": must be"
                + " `spec.version+\".\"+spec.group`").contains("spec.insecureSkipTLSVerify: Invalid value: true: may not"
                + " be true if caBundle is present");
        Response priorities = post(APISERVICES, """
                {"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1.p.io"},
                 "spec":{"group":"p.io","version":"v1","groupPriorityMinimum":0,"versionPriority":1001}}""");
        assertThat(priorities.code()).isEqualTo(422);
        assertThat(priorities.text("message")).contains("spec.groupPriorityMinimum: Invalid value: 0: must be positive"
                + " and less than 20000").contains("spec.versionPriority: Invalid value: 1001: must be positive and"
                + " less than 1000");
        List<String> names = new ArrayList<>();
        get(APISERVICES).json().path("items").forEach(i -> names.add(i.path("metadata").path("name").asString()));
        assertThat(names).contains("v1.", "v1.apps", "v2.autoscaling", "v1beta1.metrics.k8s.io")
                .doesNotContain("v1.p.io");
    }
}
