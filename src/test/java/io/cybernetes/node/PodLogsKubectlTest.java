package io.cybernetes.node;

import io.cybernetes.apiserver.Kubectl;
import io.cybernetes.apiserver.SimulatedClusterSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code kubectl logs} against the simulated nodes: the API server authorizes
 * {@code pods/log} and passes it to the kubelet endpoint of the pod's node, which answers
 * from the container's simulated log (its start, its script's lines, its exit).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PodLogsKubectlTest extends SimulatedClusterSupport {

    static final String NS = "logs";
    static final String PODS = "/api/v1/namespaces/" + NS + "/pods";

    @TempDir
    Path dir;

    @BeforeAll
    void namespace() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
    }

    private Kubectl kubectl() {
        return new Kubectl(endpoints.adminKubeconfig(), dir);
    }

    /** A pod with a log script (JSON-escaped), more metadata and spec fields; waits until it runs. */
    private void pod(String name, String script, String moreSpec) {
        String annotations = script == null ? "" : ",\"annotations\":{\"cybernetes.io/log-script\":\"" + script + "\"}";
        String json = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"" + name + "\",\"labels\":"
                + "{\"app\":\"" + name.replaceAll("-\\d+$", "") + "\"}" + annotations + "},\"spec\":{"
                + (moreSpec.contains("\"containers\"") ? moreSpec : moreSpec + (moreSpec.isEmpty() ? "" : ",")
                + "\"containers\":[{\"name\":\"app\",\"image\":\"nginx\"}]") + "}}";
        var r = post(PODS, json);
        assertThat(r.code()).as(r.body()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(30)).until(() -> "Running".equals(get(PODS + "/" + name).json()
                .path("status").path("phase").asString()));
    }

    private static List<String> lines(String out) {
        return Arrays.stream(out.split("\n")).filter(l -> !l.isEmpty()).toList();
    }

    @Test
    void aContainersLogHasItsStartAndItsScriptsLinesAndReadsAsKubectlAsks() {
        pod("greeter", "hello from {pod} on {node}\\nsleep 50ms\\nline {n}\\nrepeat", "");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            Kubectl.Run r = kubectl().run("-n", NS, "logs", "greeter");
            assertThat(r.exit()).as(r.all()).isZero();
            List<String> lines = lines(r.out());
            assertThat(lines.get(0)).isEqualTo("[cybernetes] started container app (image nginx)");
            assertThat(lines.get(1)).matches("hello from greeter on node-\\d");
            assertThat(lines).hasSizeGreaterThan(6).contains("line 2", "line 4");
        });
        Kubectl.Run tail = kubectl().run("-n", NS, "logs", "greeter", "--tail=3");
        assertThat(lines(tail.out())).hasSize(3);
        Kubectl.Run stamped = kubectl().run("-n", NS, "logs", "greeter", "--tail=2", "--timestamps");
        assertThat(lines(stamped.out())).hasSize(2).allMatch(l -> l.matches(
                "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d{1,9})?Z (hello from .*|line \\d+)"));
        Kubectl.Run limited = kubectl().run("-n", NS, "logs", "greeter", "--limit-bytes=10");
        assertThat(limited.out()).isEqualTo("[cybernete");
        await().pollDelay(Duration.ofMillis(1200)).until(() -> true);
        Kubectl.Run recent = kubectl().run("-n", NS, "logs", "greeter", "--since=1s");
        assertThat(lines(recent.out())).isNotEmpty().doesNotContain("[cybernetes] started container app (image nginx)");
    }

    @Test
    void followingALogEndsWhenTheContainerExits() {
        pod("finisher", "first\\nsleep 300ms\\nsecond\\nsleep 300ms\\nthird\\nsleep 30s\\nnever printed",
                "\"restartPolicy\":\"Never\"");
        // the pod runs for the time its annotation gives; set after the start so that -f attaches while it runs
        assertThat(patch(PODS + "/finisher", "application/merge-patch+json",
                "{\"metadata\":{\"annotations\":{\"cybernetes.io/run-seconds\":\"2\"}}}").code()).isEqualTo(200);
        Kubectl.Run followed = kubectl().run("-n", NS, "logs", "-f", "finisher");
        assertThat(followed.exit()).as(followed.all()).isZero();
        assertThat(lines(followed.out())).containsSequence("first", "second", "third")
                .doesNotContain("never printed").last().isEqualTo("[cybernetes] container app exited with code 0");
    }

    @Test
    void previousShowsTheRunBeforeACrash() {
        pod("crasher", "serving\\nsleep 100ms\\nrepeat", "");
        var before = get(PODS + "/crasher/log?previous=true");
        assertThat(before.code()).isEqualTo(400);
        assertThat(before.text("message")).isEqualTo("previous terminated container \"app\" in pod \"crasher\" not found");
        var crash = post("/apis/status.cybernetes.io/v1/namespaces/" + NS + "/pods/crasher/faults",
                "{\"action\":\"CrashContainer\",\"exitCode\":3}");
        assertThat(crash.code()).as(crash.body()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(30)).until(() -> get(PODS + "/crasher").json().path("status")
                .path("containerStatuses").path(0).path("restartCount").asInt() == 1
                && get(PODS + "/crasher").json().path("status").path("containerStatuses").path(0).path("ready")
                .asBoolean());
        Kubectl.Run previous = kubectl().run("-n", NS, "logs", "crasher", "--previous");
        assertThat(previous.exit()).as(previous.all()).isZero();
        assertThat(lines(previous.out())).first().isEqualTo("[cybernetes] started container app (image nginx)");
        assertThat(lines(previous.out())).last().isEqualTo("[cybernetes] container app exited with code 3");
        Kubectl.Run current = kubectl().run("-n", NS, "logs", "crasher");
        assertThat(lines(current.out())).first().isEqualTo("[cybernetes] started container app (image nginx, restart 1)");
    }

    @Test
    void containersAreChosenAsKubernetesChoosesThem() {
        pod("pair", null, "\"containers\":[{\"name\":\"web\",\"image\":\"nginx\"},{\"name\":\"sidecar\",\"image\":"
                + "\"busybox\"}]");
        Kubectl.Run sidecar = kubectl().run("-n", NS, "logs", "pair", "-c", "sidecar");
        assertThat(sidecar.exit()).as(sidecar.all()).isZero();
        assertThat(lines(sidecar.out()).get(0)).isEqualTo("[cybernetes] started container sidecar (image busybox)");
        var unnamed = get(PODS + "/pair/log");
        assertThat(unnamed.code()).isEqualTo(400);
        assertThat(unnamed.text("message")).isEqualTo("a container name must be specified for pod pair, choose one of:"
                + " [web sidecar]");
        var wrong = get(PODS + "/pair/log?container=nope");
        assertThat(wrong.code()).isEqualTo(400);
        assertThat(wrong.text("message")).isEqualTo("container nope is not valid for pod pair");
        var negative = get(PODS + "/pair/log?container=web&tailLines=-1");
        assertThat(negative.code()).isEqualTo(422);
        assertThat(negative.text("message")).isEqualTo("PodLogOptions \"pair\" is invalid: tailLines: Invalid value: -1:"
                + " must be greater than or equal to 0");
        var missing = get(PODS + "/nope/log");
        assertThat(missing.code()).isEqualTo(404);
        assertThat(missing.text("message")).isEqualTo("pods \"nope\" not found");
    }

    @Test
    void aLabelSelectorReadsTheLogsOfEveryPodItSelects() {
        pod("multi-1", "I am {pod}", "");
        pod("multi-2", "I am {pod}", "");
        Kubectl.Run both = kubectl().run("-n", NS, "logs", "-l", "app=multi", "--prefix");
        assertThat(both.exit()).as(both.all()).isZero();
        assertThat(both.out()).contains("[pod/multi-1/app] I am multi-1", "[pod/multi-2/app] I am multi-2");
    }

    @Test
    void aPodNotYetOnANodeHasAnEmptyLogAndAWaitingContainerSaysSo() {
        var r = post(PODS, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"nowhere\"},\"spec\":"
                + "{\"nodeSelector\":{\"no\":\"such-node\"},\"containers\":[{\"name\":\"app\",\"image\":\"nginx\"}]}}");
        assertThat(r.code()).isEqualTo(201);
        var empty = call("GET", PODS + "/nowhere/log", null, null, "*/*", true);
        assertThat(empty.code()).isEqualTo(200);
        assertThat(empty.body()).isEmpty();
    }

    @Test
    void readingALogNeedsGetOnPodsLog() {
        pod("guarded", "secret-ish output", "");
        var refused = callAs("carol-token", "GET", PODS + "/guarded/log", null, null, "*/*");
        assertThat(refused.code()).isEqualTo(403);
        assertThat(refused.text("message")).isEqualTo("pods \"guarded\" is forbidden: User \"carol\" cannot get"
                + " resource \"pods/log\" in API group \"\" in the namespace \"" + NS + "\"");
        assertThat(post("/apis/rbac.authorization.k8s.io/v1/namespaces/" + NS + "/rolebindings", """
                {"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"carol-views"},
                 "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},
                 "subjects":[{"kind":"User","name":"carol","apiGroup":"rbac.authorization.k8s.io"}]}""").code())
                .isIn(201, 409);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            var allowed = callAs("carol-token", "GET", PODS + "/guarded/log", null, null, "*/*");
            assertThat(allowed.code()).as(allowed.body()).isEqualTo(200);
            assertThat(allowed.body()).contains("secret-ish output");
        });
    }

    @Test
    void aNodesKubeletEndpointAnswersTheApiServerOnly() throws Exception {
        var node = get("/api/v1/nodes/node-1").json().path("status");
        int port = node.path("daemonEndpoints").path("kubeletEndpoint").path("Port").asInt();
        assertThat(port).isPositive();
        assertThat(node.path("addresses").findValuesAsString("address")).contains("127.0.0.1", "node-1");
        Path pki = endpoints.adminKubeconfig().getParent().resolve("pki");
        var ca = io.cybernetes.api.CertificateAuthority.of(
                io.cybernetes.api.X509Certificates.readCertificate(pki.resolve("ca.crt")),
                io.cybernetes.api.X509Certificates.readPrivateKey(pki.resolve("ca.key")));
        java.net.URI healthz = java.net.URI.create("https://127.0.0.1:" + port + "/healthz");
        // no client certificate: 401; a node's own certificate, though the CA signed it: 403
        java.security.KeyStore none = java.security.KeyStore.getInstance("PKCS12");
        none.load(null, null);
        assertThat(status(ca.tls(none), healthz)).isEqualTo(401);
        var other = ca.issue("CN=system:node:node-2,O=system:nodes", io.cybernetes.api.X509Certificates.Purpose.CLIENT,
                List.of(), Duration.ofHours(1));
        assertThat(status(ca.tls(other), healthz)).isEqualTo(403);
        var apiserver = ca.issue(io.cybernetes.api.KubeletApi.CLIENT_SUBJECT,
                io.cybernetes.api.X509Certificates.Purpose.CLIENT, List.of(), Duration.ofHours(1));
        assertThat(status(ca.tls(apiserver), healthz)).isEqualTo(200);
    }

    private static int status(javax.net.ssl.SSLContext tls, java.net.URI uri) throws Exception {
        var http = java.net.http.HttpClient.newBuilder().sslContext(tls).build();
        return http.send(java.net.http.HttpRequest.newBuilder(uri).build(),
                java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    @Test
    void nodesProxyReachesTheKubeletEndpointsAsTheApiServer() {
        Kubectl.Run health = kubectl().run("get", "--raw", "/api/v1/nodes/node-1/proxy/healthz");
        assertThat(health.exit()).as(health.all()).isZero();
        assertThat(health.out()).isEqualTo("ok\n");
        var pods = get("/api/v1/nodes/node-1/proxy/pods");
        assertThat(pods.code()).isEqualTo(200);
        assertThat(pods.json().path("kind").asString()).isEqualTo("PodList");
        pods.json().path("items").forEach(p -> assertThat(p.path("spec").path("nodeName").asString())
                .isEqualTo("node-1"));
        var missing = get("/api/v1/nodes/node-1/proxy/nope");
        assertThat(missing.code()).isEqualTo(404);
        var refused = callAs("carol-token", "GET", "/api/v1/nodes/node-1/proxy/healthz", null, null, "*/*");
        assertThat(refused.code()).isEqualTo(403);
        assertThat(refused.text("message")).isEqualTo("nodes \"node-1\" is forbidden: User \"carol\" cannot get"
                + " resource \"nodes/proxy\" in API group \"\" at the cluster scope");
    }

    @Test
    void aNodeThatCannotBeReachedIsReportedAsKubeApiserverReportsAFailedDial() throws Exception {
        int closed;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        var node = post("/api/v1/nodes", "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"gone-node\"}}");
        assertThat(node.code()).isIn(201, 409);
        assertThat(patch("/api/v1/nodes/gone-node/status", "application/merge-patch+json", "{\"status\":{\"addresses\":"
                + "[{\"type\":\"InternalIP\",\"address\":\"127.0.0.1\"}],\"daemonEndpoints\":{\"kubeletEndpoint\":"
                + "{\"Port\":" + closed + "}}}}").code()).isEqualTo(200);
        assertThat(post(PODS, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"stranded\"},"
                + "\"spec\":{\"nodeName\":\"gone-node\",\"containers\":[{\"name\":\"app\",\"image\":\"nginx\"}]}}")
                .code()).isEqualTo(201);
        var r = get(PODS + "/stranded/log");
        assertThat(r.code()).isEqualTo(500);
        assertThat(r.text("message")).isEqualTo("Get \"https://127.0.0.1:" + closed + "/containerLogs/" + NS
                + "/stranded/app\": dial tcp 127.0.0.1:" + closed + ": connect: connection refused");
        // a stream to it fails the same way, in the words of kube-apiserver's proxy
        Kubectl.Run exec = kubectl().run("-n", NS, "exec", "stranded", "--", "ls");
        assertThat(exec.exit()).isNotZero();
        assertThat(exec.err()).contains("error dialing backend: dial tcp 127.0.0.1:" + closed
                + ": connect: connection refused");
        delete("/api/v1/nodes/gone-node");
    }

    @Test
    void aLogStreamIsAuditedWithItsRequestAndNeverItsContent() {
        pod("audited", "a line that stays out of the audit log", "");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(call("GET", PODS + "/audited/log", null,
                null, "*/*", true).body()).contains("a line that stays out of the audit log"));
        var log = call("GET", PODS + "/audited/log?timestamps=true", null, null, "*/*", true);
        assertThat(log.code()).isEqualTo(200);
        var event = auditEvent(log);
        assertThat(event.path("verb").asString()).isEqualTo("get");
        assertThat(event.path("objectRef").path("resource").asString()).isEqualTo("pods");
        assertThat(event.path("objectRef").path("subresource").asString()).isEqualTo("log");
        assertThat(event.path("objectRef").path("name").asString()).isEqualTo("audited");
        assertThat(event.path("requestURI").asString()).isEqualTo(PODS + "/audited/log?timestamps=true");
        assertThat(event.path("responseStatus").path("code").asInt()).isEqualTo(200);
        assertThat(event.toString()).doesNotContain("stays out of the audit log");
    }

    @Test
    void sinceTimeLeavesOutWhatCameBeforeIt() {
        pod("timed", "early\\nsleep 1500ms\\nlate", "");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(kubectl().run("-n", NS, "logs", "timed")
                .out()).contains("late"));
        String late = lines(kubectl().run("-n", NS, "logs", "timed", "--timestamps").out()).stream()
                .filter(l -> l.endsWith(" late")).findFirst().orElseThrow();
        String when = late.substring(0, late.indexOf(' '));
        Kubectl.Run since = kubectl().run("-n", NS, "logs", "timed", "--since-time=" + when);
        assertThat(since.exit()).as(since.all()).isZero();
        assertThat(lines(since.out())).containsExactly("late");
        var bad = get(PODS + "/timed/log?sinceTime=yesterday");
        assertThat(bad.code()).isEqualTo(400);
        assertThat(bad.text("message")).startsWith("parsing time \"yesterday\" as \"2006-01-02T15:04:05Z07:00\"");
    }
}
