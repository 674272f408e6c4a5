package io.cybernetes.node;

import io.cybernetes.apiserver.Kubectl;
import io.cybernetes.apiserver.SimulatedClusterSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code kubectl exec} and {@code kubectl attach} against the simulated nodes: the API
 * server proxies the WebSocket ({@code v5.channel.k8s.io}) to the kubelet endpoint of the
 * pod's node, whose shell answers with the container's environment and files, and exit
 * codes reach kubectl.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PodExecKubectlTest extends SimulatedClusterSupport {

    static final String NS = "exec";
    static final String PODS = "/api/v1/namespaces/" + NS + "/pods";

    @TempDir
    Path dir;

    @BeforeAll
    void setUp() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        assertThat(post("/api/v1/namespaces/" + NS + "/configmaps", """
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings"},
                 "data":{"greeting":"hello from a ConfigMap","mode":"fast"}}""").code()).isIn(201, 409);
        assertThat(post("/api/v1/namespaces/" + NS + "/secrets", """
                {"apiVersion":"v1","kind":"Secret","metadata":{"name":"creds"},
                 "stringData":{"password":"s3cret"}}""").code()).isIn(201, 409);
        assertThat(post(PODS, """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"shell","labels":{"app":"shell"}},
                 "spec":{"containers":[{"name":"app","image":"busybox",
                   "env":[{"name":"GREETING","valueFrom":{"configMapKeyRef":{"name":"settings","key":"greeting"}}},
                          {"name":"POD_NAME","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}},
                          {"name":"PASSWORD","valueFrom":{"secretKeyRef":{"name":"creds","key":"password"}}},
                          {"name":"DERIVED","value":"$(GREETING)!"}],
                   "envFrom":[{"prefix":"CFG_","configMapRef":{"name":"settings"}}],
                   "volumeMounts":[{"name":"config","mountPath":"/etc/config"},
                                   {"name":"creds","mountPath":"/etc/creds","readOnly":true},
                                   {"name":"info","mountPath":"/etc/podinfo"}]}],
                  "volumes":[{"name":"config","configMap":{"name":"settings"}},
                             {"name":"creds","secret":{"secretName":"creds"}},
                             {"name":"info","downwardAPI":{"items":[{"path":"labels",
                               "fieldRef":{"fieldPath":"metadata.labels"}}]}}]}}""").code()).isIn(201, 409);
        await().atMost(Duration.ofSeconds(30)).until(() -> "Running".equals(get(PODS + "/shell").json()
                .path("status").path("phase").asString()));
    }

    private Kubectl kubectl() {
        return new Kubectl(endpoints.adminKubeconfig(), dir);
    }

    @Test
    void aCommandRunsAndItsOutputAndExitCodeReachKubectl() {
        Kubectl.Run hello = kubectl().run("-n", NS, "exec", "shell", "--", "echo", "hello", "world");
        assertThat(hello.exit()).as(hello.all()).isZero();
        assertThat(hello.out()).isEqualTo("hello world\n");
        Kubectl.Run three = kubectl().run("-n", NS, "exec", "shell", "--", "sh", "-c", "echo out; echo err >&2; exit 3");
        assertThat(three.exit()).as(three.all()).isEqualTo(3);
        assertThat(three.err()).contains("command terminated with exit code 3");
        Kubectl.Run unknown = kubectl().run("-n", NS, "exec", "shell", "--", "nope", "--help");
        assertThat(unknown.exit()).isEqualTo(127);
        assertThat(unknown.err()).contains("sh: nope: not found");
        Kubectl.Run host = kubectl().run("-n", NS, "exec", "shell", "--", "hostname");
        assertThat(host.out()).isEqualTo("shell\n");
    }

    @Test
    void envShowsTheResolvedEnvironment() {
        Kubectl.Run env = kubectl().run("-n", NS, "exec", "shell", "--", "env");
        assertThat(env.exit()).as(env.all()).isZero();
        assertThat(env.out()).contains("GREETING=hello from a ConfigMap\n", "POD_NAME=shell\n", "PASSWORD=s3cret\n",
                "DERIVED=hello from a ConfigMap!\n", "CFG_mode=fast\n", "KUBERNETES_SERVICE_HOST=10.96.0.1\n",
                "HOSTNAME=shell\n");
        Kubectl.Run piped = kubectl().run("-n", NS, "exec", "shell", "--", "sh", "-c", "env | grep ^CFG_ | sort");
        assertThat(piped.out()).isEqualTo("CFG_greeting=hello from a ConfigMap\nCFG_mode=fast\n");
    }

    @Test
    void theMountedVolumesAndTheServiceAccountAreFiles() {
        Kubectl.Run cat = kubectl().run("-n", NS, "exec", "shell", "--", "cat", "/etc/config/greeting");
        assertThat(cat.out()).isEqualTo("hello from a ConfigMap");
        Kubectl.Run ls = kubectl().run("-n", NS, "exec", "shell", "--", "ls", "/etc/config",
                "/var/run/secrets/kubernetes.io/serviceaccount");
        assertThat(ls.out()).isEqualTo("/etc/config:\ngreeting\nmode\n/var/run/secrets/kubernetes.io/serviceaccount:\n"
                + "ca.crt\nnamespace\ntoken\n");
        Kubectl.Run secret = kubectl().run("-n", NS, "exec", "shell", "--", "cat", "/etc/creds/password");
        assertThat(secret.out()).isEqualTo("s3cret");
        Kubectl.Run labels = kubectl().run("-n", NS, "exec", "shell", "--", "cat", "/etc/podinfo/labels");
        assertThat(labels.out()).isEqualTo("app=\"shell\"");
        Kubectl.Run token = kubectl().run("-n", NS, "exec", "shell", "--", "sh", "-c",
                "cat /var/run/secrets/kubernetes.io/serviceaccount/token | wc -c; cat /var/run/secrets/"
                        + "kubernetes.io/serviceaccount/namespace");
        assertThat(token.exit()).as(token.all()).isZero();
        assertThat(token.out()).endsWith(NS);
        assertThat(token.out().trim().split("\\s+")[2]).as("a token was issued").isNotEqualTo("0");
        Kubectl.Run missing = kubectl().run("-n", NS, "exec", "shell", "--", "cat", "/etc/nope");
        assertThat(missing.exit()).isEqualTo(1);
        assertThat(missing.err()).contains("cat: can't open '/etc/nope': No such file or directory");
    }

    @Test
    void stdinFeedsAnInteractiveShell() {
        Kubectl.Run session = kubectl().runWithInput("echo typed $GREETING\ncd /etc/config\npwd\ncat mode\nexit 4\n",
                "-n", NS, "exec", "-i", "shell", "--", "sh");
        assertThat(session.exit()).as(session.all()).isEqualTo(4);
        assertThat(session.out()).isEqualTo("typed hello from a ConfigMap\n/etc/config\nfast");
    }

    @Test
    void kubectlWithoutWebSocketsExecsOverSpdy() {
        Kubectl spdy = kubectl().withEnv("KUBECTL_REMOTE_COMMAND_WEBSOCKETS", "false");
        Kubectl.Run three = spdy.run("-n", NS, "exec", "shell", "--", "sh", "-c", "echo out; echo err >&2; exit 3");
        assertThat(three.exit()).as(three.all()).isEqualTo(3);
        assertThat(three.out()).isEqualTo("out\n");
        assertThat(three.err()).contains("err\n", "command terminated with exit code 3");
        Kubectl.Run env = spdy.run("-n", NS, "exec", "shell", "--", "sh", "-c", "echo $GREETING");
        assertThat(env.exit()).as(env.all()).isZero();
        assertThat(env.out()).isEqualTo("hello from a ConfigMap\n");
        Kubectl.Run session = spdy.runWithInput("cd /etc/config\ncat mode\nexit 5\n", "-n", NS, "exec", "-i",
                "shell", "--", "sh");
        assertThat(session.exit()).as(session.all()).isEqualTo(5);
        assertThat(session.out()).isEqualTo("fast");
        Kubectl.Run unknown = spdy.run("-n", NS, "exec", "shell", "--", "nope");
        assertThat(unknown.exit()).isEqualTo(127);
        assertThat(unknown.err()).contains("sh: nope: not found");
    }

    /** A WebSocket exec of {@code sh -c script} through the API server, offering only {@code protocol}. */
    private String[] execOver(String protocol, String script) throws Exception {
        java.nio.file.Path pki = endpoints.adminKubeconfig().getParent().resolve("pki");
        var ca = io.cybernetes.api.CertificateAuthority.of(
                io.cybernetes.api.X509Certificates.readCertificate(pki.resolve("ca.crt")),
                io.cybernetes.api.X509Certificates.readPrivateKey(pki.resolve("ca.key")));
        java.security.KeyStore none = java.security.KeyStore.getInstance("PKCS12");
        none.load(null, null);
        java.net.URI uri = java.net.URI.create("wss://127.0.0.1:" + endpoints.httpsPort() + PODS + "/shell/exec?command=sh"
                + "&command=-c&command=" + java.net.URLEncoder.encode(script, java.nio.charset.StandardCharsets.UTF_8)
                + "&stdout=true&stderr=true");
        var ws = io.cybernetes.api.WebSocketConnection.connect(ca.tls(none), uri, java.util.List.of(protocol),
                java.util.Map.of("Authorization", "Bearer " + token()), Duration.ofSeconds(30));
        assertThat(ws.protocol()).isEqualTo(protocol);
        StringBuilder[] channels = {new StringBuilder(), new StringBuilder(), new StringBuilder(), new StringBuilder()};
        io.cybernetes.api.WebSocketConnection.Message m;
        while ((m = ws.read()) != null) {
            if (m.data().length > 1 && m.data()[0] < channels.length) {
                channels[m.data()[0]].append(new String(m.data(), 1, m.data().length - 1,
                        java.nio.charset.StandardCharsets.UTF_8));
            }
        }
        ws.close(1000, "");
        return new String[] {channels[1].toString(), channels[2].toString(), channels[3].toString()};
    }

    @Test
    void theEarlierChannelProtocolsAreSpokenAsKubernetesSpeaksThem() throws Exception {
        // v4 and v5: the error channel carries a Status; before them, only a failure's message
        String[] v5 = execOver("v5.channel.k8s.io", "echo five; exit 2");
        assertThat(v5[0]).isEqualTo("five\n");
        assertThat(v5[2]).contains("\"reason\":\"NonZeroExitCode\"", "\"message\":\"2\"");
        for (String protocol : new String[] {"v3.channel.k8s.io", "v2.channel.k8s.io", "channel.k8s.io"}) {
            String[] ok = execOver(protocol, "echo out; echo err >&2");
            assertThat(ok[0]).as(protocol).isEqualTo("out\n");
            assertThat(ok[1]).as(protocol).isEqualTo("err\n");
            assertThat(ok[2]).as(protocol).isEmpty();
            String[] failed = execOver(protocol, "exit 3");
            assertThat(failed[2]).as(protocol).isEqualTo("error executing command [sh -c exit 3], exit code 3");
        }
    }

    @Test
    void refusalsAreKubernetesOwn() {
        var noUpgrade = get(PODS + "/shell/exec?command=ls&stdout=true");
        assertThat(noUpgrade.code()).isEqualTo(400);
        assertThat(noUpgrade.text("message")).isEqualTo("Upgrade request required");
        var noStreams = get(PODS + "/shell/exec?command=ls");
        assertThat(noStreams.code()).isEqualTo(400);
        assertThat(noStreams.text("message")).isEqualTo("you must specify at least 1 of stdin, stdout, stderr");
        // each stream's verb as Kubernetes authorizes it: get for a WebSocket's GET, create for SPDY's POST
        for (String[] c : new String[][] {{"GET", "exec?command=ls&stdout=true", "get", "pods/exec"},
                {"POST", "exec?command=ls&stdout=true", "create", "pods/exec"},
                {"GET", "attach?stdout=true", "get", "pods/attach"},
                {"POST", "attach?stdout=true", "create", "pods/attach"},
                {"POST", "portforward?ports=80", "create", "pods/portforward"},
                {"PATCH", "ephemeralcontainers", "patch", "pods/ephemeralcontainers"},
                {"PUT", "ephemeralcontainers", "update", "pods/ephemeralcontainers"}}) {
            var refused = callAs("carol-token", c[0], PODS + "/shell/" + c[1], c[0].equals("PATCH")
                    ? "application/strategic-merge-patch+json" : "application/json", c[0].startsWith("P") ? "{}"
                    : null, "*/*");
            assertThat(refused.code()).as(String.join(" ", c)).isEqualTo(403);
            assertThat(refused.text("message")).isEqualTo("pods \"shell\" is forbidden: User \"carol\" cannot " + c[2]
                    + " resource \"" + c[3] + "\" in API group \"\" in the namespace \"" + NS + "\"");
        }
        var noContainer = get(PODS + "/shell/exec?command=ls&stdout=true&container=nope");
        assertThat(noContainer.code()).isEqualTo(400);
        assertThat(noContainer.text("message")).isEqualTo("container nope is not valid for pod shell");
        assertThat(post(PODS, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"unplaced\"},\"spec\":"
                + "{\"nodeSelector\":{\"no\":\"such-node\"},\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}")
                .code()).isIn(201, 409);
        Kubectl.Run unplaced = kubectl().run("-n", NS, "exec", "unplaced", "--", "ls");
        assertThat(unplaced.exit()).isNotZero();
        assertThat(unplaced.err()).contains("pod unplaced does not have a host assigned");
    }

    @Test
    void attachJoinsAContainerThatKeepsStdinOpen() {
        attachTo(kubectl(), "console");
    }

    @Test
    void kubectlWithoutWebSocketsAttachesOverSpdy() {
        attachTo(kubectl().withEnv("KUBECTL_REMOTE_COMMAND_WEBSOCKETS", "false"), "spdy-console");
    }

    /** A pod whose container keeps stdin open, attached to with {@code kubectl attach -i}. */
    private void attachTo(Kubectl kubectl, String pod) {
        assertThat(post(PODS, """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s"},
                 "spec":{"containers":[{"name":"sh","image":"busybox","stdin":true,"command":["sh"]}]}}"""
                .formatted(pod)).code()).isIn(201, 409);
        await().atMost(Duration.ofSeconds(30)).until(() -> "Running".equals(get(PODS + "/" + pod).json()
                .path("status").path("phase").asString()));
        Kubectl.Run attached = kubectl.runWithInput("echo attached to $HOSTNAME\nexit 0\n", "-n", NS, "attach", "-i",
                pod);
        assertThat(attached.exit()).as(attached.all()).isZero();
        assertThat(attached.out()).contains("attached to " + pod);
    }

    @Test
    void debugAddsAnEphemeralContainerThatRunsAndIsAttachedTo() {
        // -v=6: kubectl logs each request with its answer and time (stderr), so that a failure says which
        // request it was (once, in CI on 2026-12-04, one went unanswered for the 30 s request timeout)
        Kubectl.Run debug = kubectl().runWithInput("echo debugging $HOSTNAME\nexit 0\n", "-v=6", "-n", NS, "debug",
                "shell", "-i", "--image=busybox", "--container=dbg");
        assertThat(debug.exit()).as(debug.all()).isZero();
        assertThat(debug.out()).contains("debugging shell");
        var pod = get(PODS + "/shell").json();
        assertThat(pod.path("spec").path("ephemeralContainers").path(0).path("name").asString()).isEqualTo("dbg");
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(get(PODS + "/shell").json()
                .path("status").path("ephemeralContainerStatuses").path(0).path("state").path("terminated")
                .path("exitCode").asInt(-1)).isZero());
        assertThat(get(PODS + "/shell").json().path("status").path("phase").asString())
                .as("the pod runs on: an ephemeral container's end is not the pod's").isEqualTo("Running");
        // -v=6 here too: once in CI this answered InternalError with an empty body, and the request's log says more
        Kubectl.Run log = kubectl().run("-v=6", "-n", NS, "logs", "shell", "-c", "dbg");
        assertThat(log.out()).as(log.all()).startsWith("[cybernetes] started container dbg (image busybox)")
                .contains("exited with code 0");
        // one already there may not change, nor may one come with what ephemeral containers cannot have
        var changed = patch(PODS + "/shell/ephemeralcontainers", "application/strategic-merge-patch+json",
                "{\"spec\":{\"ephemeralContainers\":[{\"name\":\"dbg\",\"image\":\"alpine\"}]}}");
        assertThat(changed.code()).isEqualTo(422);
        assertThat(changed.text("message")).contains("spec.ephemeralContainers[0]: Forbidden: existing ephemeral"
                + " containers \"dbg\" may not be changed");
        var ports = patch(PODS + "/shell/ephemeralcontainers", "application/strategic-merge-patch+json",
                "{\"spec\":{\"ephemeralContainers\":[{\"name\":\"web\",\"image\":\"nginx\",\"ports\":"
                        + "[{\"containerPort\":80}]}]}}");
        assertThat(ports.code()).isEqualTo(422);
        assertThat(ports.text("message")).contains("spec.ephemeralContainers[1].ports: Forbidden: cannot be set for an"
                + " Ephemeral Container");
        var onCreate = post(PODS, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"early\"},"
                + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}],\"ephemeralContainers\":"
                + "[{\"name\":\"e\",\"image\":\"busybox\"}]}}");
        assertThat(onCreate.code()).isEqualTo(422);
        assertThat(onCreate.text("message")).contains("spec.ephemeralContainers: Forbidden: cannot be set on create");
    }
}
