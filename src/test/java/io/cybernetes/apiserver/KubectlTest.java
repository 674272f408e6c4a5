package io.cybernetes.apiserver;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

import io.cybernetes.apiserver.Kubectl.Run;

import static org.assertj.core.api.Assertions.assertThat;

/** The real kubectl ({@code /usr/bin/kubectl}) against the server, with the generated admin kubeconfig. */
class KubectlTest extends ApiTestSupport {

    static final String KUBECTL = Kubectl.PATH;

    @TempDir
    Path dir;

    String ns;

    @BeforeEach
    void namespace() {
        assertThat(Path.of(KUBECTL)).as("kubectl must be installed for these tests").isExecutable();
        ns = "k-" + UUID.randomUUID().toString().substring(0, 8);
        Run created = kubectl("create", "namespace", ns);
        assertThat(created.exit()).as(created.all()).isZero();
    }

    Run kubectl(String... args) {
        return kubectlWith(endpoints.adminKubeconfig(), args);
    }

    Run kubectlWith(Path kubeconfig, String... args) {
        return new Kubectl(kubeconfig, dir).run(args);
    }

    Path file(String name, String content) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, content, StandardCharsets.UTF_8);
        return p;
    }

    static String manifests(int replicas, String image) {
        return """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: web
                  labels:
                    app: web
                spec:
                  replicas: %d
                  selector:
                    matchLabels:
                      app: web
                  template:
                    metadata:
                      labels:
                        app: web
                    spec:
                      containers:
                      - name: nginx
                        image: %s
                        ports:
                        - containerPort: 80
                ---
                apiVersion: v1
                kind: Pod
                metadata:
                  name: solo
                  labels:
                    app: solo
                spec:
                  containers:
                  - name: main
                    image: busybox:1.36
                """.formatted(replicas, image);
    }

    @Test
    void versionAndApiResources() {
        Run v = kubectl("version");
        assertThat(v.exit()).as(v.all()).isZero();
        assertThat(v.out()).contains("Server Version: v1.32");
        Run r = kubectl("api-resources");
        assertThat(r.exit()).as(r.all()).isZero();
        assertThat(r.out()).containsPattern("deployments\\s+deploy\\s+apps/v1\\s+true\\s+Deployment")
                .containsPattern("pods\\s+po\\s+v1\\s+true\\s+Pod")
                .containsPattern("namespaces\\s+ns\\s+v1\\s+false\\s+Namespace");
    }

    @Test
    void applyGetApplyAgainLabelScalePatchAndDelete() throws IOException {
        Path m = file("app.yaml", manifests(2, "nginx:1.27"));
        Run applied = kubectl("apply", "-n", ns, "-f", m.toString());
        assertThat(applied.exit()).as(applied.all()).isZero();
        assertThat(applied.out()).contains("deployment.apps/web created", "pod/solo created");

        Run table = kubectl("get", "-n", ns, "deployments");
        assertThat(table.exit()).as(table.all()).isZero();
        assertThat(table.out().lines().findFirst().orElse(""))
                .matches("NAME\\s+READY\\s+UP-TO-DATE\\s+AVAILABLE\\s+AGE");
        assertThat(table.out()).containsPattern("web\\s+0/2\\s+[0-2]\\s+0\\s+\\d+s");
        Run pods = kubectl("get", "-n", ns, "pods", "-o", "wide");
        assertThat(pods.out().lines().findFirst().orElse(""))
                .matches("NAME\\s+READY\\s+STATUS\\s+RESTARTS\\s+AGE\\s+IP\\s+NODE\\s+NOMINATED NODE\\s+READINESS GATES");
        assertThat(pods.out()).containsPattern("solo\\s+0/1\\s+Pending\\s+0");

        Run yaml = kubectl("get", "-n", ns, "deployment", "web", "-o", "yaml");
        assertThat(yaml.out()).contains("kind: Deployment", "replicas: 2", "kubectl.kubernetes.io/last-applied-configuration",
                "uid:", "resourceVersion:");

        Run again = kubectl("apply", "-n", ns, "-f", file("app2.yaml", manifests(3, "nginx:1.28")).toString());
        assertThat(again.exit()).as(again.all()).isZero();
        assertThat(again.out()).contains("deployment.apps/web configured", "pod/solo unchanged");
        assertThat(kubectl("get", "-n", ns, "deploy", "web", "-o", "jsonpath={.spec.replicas} {.spec.template.spec"
                + ".containers[0].image} {.metadata.generation}").out()).isEqualTo("3 nginx:1.28 2");

        assertThat(kubectl("label", "-n", ns, "deploy", "web", "tier=front").out()).contains("labeled");
        assertThat(kubectl("scale", "-n", ns, "deploy", "web", "--replicas=5").out()).contains("scaled");
        assertThat(kubectl("patch", "-n", ns, "deploy", "web", "--type=json", "-p",
                "[{\"op\":\"add\",\"path\":\"/metadata/annotations/owner\",\"value\":\"team-a\"}]").out()).contains("patched");
        assertThat(kubectl("patch", "-n", ns, "deploy", "web", "--type=merge", "-p",
                "{\"spec\":{\"minReadySeconds\":4}}").out()).contains("patched");
        assertThat(kubectl("get", "-n", ns, "deploy", "web", "-o",
                "jsonpath={.spec.replicas} {.metadata.labels.tier} {.metadata.annotations.owner} {.spec.minReadySeconds}")
                .out()).isEqualTo("5 front team-a 4");
        assertThat(kubectl("get", "-n", ns, "deploy", "-l", "tier=front", "-o", "name").out().trim())
                .isEqualTo("deployment.apps/web");

        Run deleted = kubectl("delete", "-n", ns, "-f", m.toString());
        assertThat(deleted.exit()).as(deleted.all()).isZero();
        assertThat(deleted.out()).contains("deployment.apps \"web\" deleted", "pod \"solo\" deleted");
        Run gone = kubectl("get", "-n", ns, "deploy", "web");
        assertThat(gone.exit()).isNotZero();
        assertThat(gone.err()).contains("NotFound");
    }

    @Test
    void getWatchSeesAddedModifiedAndDeleted() throws Exception {
        ProcessBuilder pb = new ProcessBuilder(KUBECTL, "get", "configmaps", "-n", ns, "-w", "--output-watch-events",
                "--request-timeout=60s");
        pb.environment().put("KUBECONFIG", endpoints.adminKubeconfig().toString());
        pb.environment().put("HOME", dir.toString());
        Path out = dir.resolve("watch.out");
        pb.redirectOutput(out.toFile()).redirectErrorStream(true);
        Process watch = pb.start();
        try {
            waitFor(out, "No resources found", "EVENT", 10);
            assertThat(kubectl("create", "configmap", "watched", "-n", ns, "--from-literal=a=1").exit()).isZero();
            assertThat(kubectl("label", "configmap", "watched", "-n", ns, "x=y").exit()).isZero();
            assertThat(kubectl("delete", "configmap", "watched", "-n", ns).exit()).isZero();
            waitFor(out, "DELETED", null, 20);
            String printed = Files.readString(out);
            assertThat(printed).containsPattern("ADDED\\s+watched").containsPattern("MODIFIED\\s+watched")
                    .containsPattern("DELETED\\s+watched");
        } finally {
            watch.destroyForcibly();
        }
    }

    @Test
    void getInChunksPagesThroughEveryObjectOnce() {
        for (int i = 0; i < 7; i++) {
            assertThat(kubectl("create", "-n", ns, "configmap", "chunk-" + i, "--from-literal=i=" + i).exit()).isZero();
        }
        // kubectl asks for Tables two at a time, following the continue tokens to the end
        Run chunked = kubectl("get", "configmaps", "-n", ns, "--chunk-size=2", "-o", "name");
        assertThat(chunked.exit()).as(chunked.all()).isZero();
        Run whole = kubectl("get", "configmaps", "-n", ns, "--chunk-size=0", "-o", "name");
        assertThat(chunked.out().lines().toList()).containsExactlyElementsOf(whole.out().lines().toList())
                .contains("configmap/chunk-0", "configmap/chunk-6").doesNotHaveDuplicates();
        Run table = kubectl("get", "configmaps", "-n", ns, "--chunk-size=3");
        assertThat(table.exit()).as(table.all()).isZero();
        assertThat(table.out().lines().filter(l -> l.startsWith("chunk-")).count()).isEqualTo(7);
    }

    @Test
    void imperativeCreatesSendProtobufBodies() {
        assertThat(kubectl("create", "-n", ns, "configmap", "cfg", "--from-literal=color=blue").exit()).isZero();
        assertThat(kubectl("create", "-n", ns, "secret", "generic", "pw", "--from-literal=password=hunter2").exit())
                .isZero();
        assertThat(kubectl("create", "-n", ns, "serviceaccount", "robot").exit()).isZero();
        Run deploy = kubectl("create", "-n", ns, "deployment", "idle", "--image=nginx:1.27", "--replicas=0", "--port=80");
        assertThat(deploy.exit()).as(deploy.all()).isZero();
        assertThat(kubectl("get", "-n", ns, "configmap", "cfg", "-o", "jsonpath={.data.color}").out()).isEqualTo("blue");
        assertThat(kubectl("get", "-n", ns, "secret", "pw", "-o", "jsonpath={.data.password}").out())
                .isEqualTo(java.util.Base64.getEncoder().encodeToString("hunter2".getBytes(StandardCharsets.UTF_8)));
        assertThat(kubectl("get", "-n", ns, "deployment", "idle", "-o",
                "jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image} {.spec.template.spec.containers[0]"
                        + ".ports[0].containerPort} {.metadata.creationTimestamp}").out())
                .matches("0 nginx:1\\.27 80 \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
        assertThat(kubectl("get", "-n", ns, "serviceaccount", "robot", "-o", "name").out().trim())
                .isEqualTo("serviceaccount/robot");
    }

    @Test
    void rolesAndBindingsAreServedAsResources() {
        Run role = kubectl("create", "-n", ns, "role", "pod-reader", "--verb=get,list,watch", "--resource=pods");
        assertThat(role.exit()).as(role.all()).isZero();
        Run binding = kubectl("create", "-n", ns, "rolebinding", "read-pods", "--role=pod-reader", "--user=alice",
                "--group=team-a");
        assertThat(binding.exit()).as(binding.all()).isZero();
        Run wide = kubectl("get", "-n", ns, "rolebindings", "-o", "wide");
        assertThat(wide.out().lines().findFirst().orElse(""))
                .matches("NAME\\s+ROLE\\s+AGE\\s+USERS\\s+GROUPS\\s+SERVICEACCOUNTS");
        assertThat(wide.out()).containsPattern("read-pods\\s+Role/pod-reader\\s+\\S+\\s+alice\\s+team-a");
        assertThat(kubectl("get", "-n", ns, "role", "pod-reader", "-o", "jsonpath={.rules[0].verbs}").out())
                .isEqualTo("[\"get\",\"list\",\"watch\"]");
        Run cluster = kubectl("create", "clusterrole", "viewer-" + ns, "--verb=get", "--resource=deployments.apps");
        assertThat(cluster.exit()).as(cluster.all()).isZero();
        assertThat(kubectl("delete", "clusterrole", "viewer-" + ns).exit()).isZero();
    }

    @Test
    void theClientCertificateContextWorksToo() {
        Run r = kubectl("--context", "cybernetes-x509", "get", "namespaces", ns, "-o", "name");
        assertThat(r.exit()).as(r.all()).isZero();
        assertThat(r.out().trim()).isEqualTo("namespace/" + ns);
    }

    /** The admin kubeconfig with another user's bearer token in place of the admin's. */
    Path kubeconfigFor(String token) throws IOException {
        String admin = Files.readString(endpoints.adminKubeconfig());
        return file("kubeconfig-" + token, admin.replace(token(), token));
    }

    @Test
    void aTeamMemberAsksWhatTheyMayDoAndIsRefusedElsewhere() throws Exception {
        Run bind = kubectl("create", "rolebinding", "team-a-admin", "-n", ns, "--clusterrole=admin", "--group=team-a");
        assertThat(bind.exit()).as(bind.all()).isZero();
        Path alice = kubeconfigFor("alice-token");
        long deadline = System.currentTimeMillis() + 10_000;
        Run yes = kubectlWith(alice, "auth", "can-i", "list", "pods", "-n", ns);
        while (yes.exit() != 0 && System.currentTimeMillis() < deadline) {
            Thread.sleep(100);
            yes = kubectlWith(alice, "auth", "can-i", "list", "pods", "-n", ns);
        }
        assertThat(yes.out().trim()).as(yes.all()).isEqualTo("yes");
        Run no = kubectlWith(alice, "auth", "can-i", "list", "pods", "-n", "kube-system");
        assertThat(no.exit()).isNotZero();
        assertThat(no.out().trim()).isEqualTo("no");
        Run list = kubectlWith(alice, "auth", "can-i", "--list", "-n", ns);
        assertThat(list.exit()).as(list.all()).isZero();
        assertThat(list.out()).contains("secrets", "rolebindings.rbac.authorization.k8s.io",
                "selfsubjectaccessreviews.authorization.k8s.io");
        Run whoami = kubectlWith(alice, "auth", "whoami");
        assertThat(whoami.exit()).as(whoami.all()).isZero();
        assertThat(whoami.out()).contains("alice", "team-a", "system:authenticated");
        Run forbidden = kubectlWith(alice, "get", "pods", "-n", "kube-system");
        assertThat(forbidden.exit()).isNotZero();
        assertThat(forbidden.err()).contains("pods is forbidden: User \"alice\" cannot list resource \"pods\" in API"
                + " group \"\" in the namespace \"kube-system\"");
        Run sa = kubectlWith(alice, "create", "serviceaccount", "builder", "-n", ns);
        assertThat(sa.exit()).as(sa.all()).isZero();
        Run nsCreate = kubectlWith(alice, "create", "namespace", ns + "-mine");
        assertThat(nsCreate.exit()).isNotZero();
        assertThat(nsCreate.err()).contains("namespaces is forbidden: User \"alice\" cannot create resource");
        Run admin = kubectl("auth", "whoami");
        assertThat(admin.out()).contains("system:masters");
        assertThat(kubectl("auth", "can-i", "delete", "nodes").out().trim()).isEqualTo("yes");
    }

    /** The README's example: a Role naming one ConfigMap lets kubectl list it by name, and nothing more. */
    @Test
    void resourceNamesLetKubectlListThatObjectByFieldSelector() throws Exception {
        assertThat(kubectl("create", "configmap", "settings", "-n", ns, "--from-literal=mode=fast").exit()).isZero();
        assertThat(kubectl("create", "role", "one-config", "-n", ns, "--verb=get,list,watch", "--resource=configmaps",
                "--resource-name=settings").exit()).isZero();
        assertThat(kubectl("create", "rolebinding", "dora-one-config", "-n", ns, "--role=one-config", "--user=dora")
                .exit()).isZero();
        long deadline = System.currentTimeMillis() + 10_000;
        Run byName = kubectl("--as=dora", "get", "configmaps", "-n", ns, "--field-selector", "metadata.name=settings");
        while (byName.exit() != 0 && System.currentTimeMillis() < deadline) {
            Thread.sleep(100);
            byName = kubectl("--as=dora", "get", "configmaps", "-n", ns, "--field-selector", "metadata.name=settings");
        }
        assertThat(byName.exit()).as(byName.all()).isZero();
        assertThat(byName.out()).contains("settings");
        Run all = kubectl("--as=dora", "get", "configmaps", "-n", ns);
        assertThat(all.exit()).isNotZero();
        assertThat(all.err()).contains("configmaps is forbidden: User \"dora\" cannot list resource \"configmaps\"");
    }

    @Test
    void asAndAsGroupRunTheCommandAsTheImpersonatedUserOnlyWithImpersonateRights() throws Exception {
        Run bind = kubectl("create", "rolebinding", "team-a-view", "-n", ns, "--clusterrole=view", "--group=team-a");
        assertThat(bind.exit()).as(bind.all()).isZero();
        Run asAlice = kubectl("--as=alice", "--as-group=team-a", "auth", "whoami");
        assertThat(asAlice.exit()).as(asAlice.all()).isZero();
        assertThat(asAlice.out()).contains("alice", "team-a", "system:authenticated").doesNotContain("system:masters");
        Run refused = kubectl("--as=alice", "--as-group=team-a", "get", "secrets", "-n", "kube-system");
        assertThat(refused.exit()).isNotZero();
        assertThat(refused.err()).contains("secrets is forbidden: User \"alice\" cannot list resource \"secrets\"");
        Run noGroup = kubectl("--as=alice", "create", "configmap", "x", "-n", ns);
        assertThat(noGroup.exit()).as("without the group alice may not write here").isNotZero();
        assertThat(noGroup.err()).contains("User \"alice\" cannot create resource \"configmaps\"");

        Path carol = kubeconfigFor("carol-token");
        Run denied = kubectlWith(carol, "--as=alice", "get", "pods", "-n", ns);
        assertThat(denied.exit()).isNotZero();
        assertThat(denied.err()).contains("users \"alice\" is forbidden: User \"carol\" cannot impersonate resource"
                + " \"users\" in API group \"\" at the cluster scope");
        Run grant = kubectl("create", "clusterrole", "impersonate-alice-" + ns, "--verb=impersonate",
                "--resource=users", "--resource-name=alice");
        assertThat(grant.exit()).as(grant.all()).isZero();
        assertThat(kubectl("create", "clusterrolebinding", "carol-as-alice-" + ns,
                "--clusterrole=impersonate-alice-" + ns, "--user=carol").exit()).isZero();
        long deadline = System.currentTimeMillis() + 10_000;
        Run allowed = kubectlWith(carol, "--as=alice", "auth", "whoami");
        while (allowed.exit() != 0 && System.currentTimeMillis() < deadline) {
            Thread.sleep(100);
            allowed = kubectlWith(carol, "--as=alice", "auth", "whoami");
        }
        assertThat(allowed.out()).as(allowed.all()).contains("alice").doesNotContain("carol");
        Run groupDenied = kubectlWith(carol, "--as=alice", "--as-group=system:masters", "get", "nodes");
        assertThat(groupDenied.exit()).isNotZero();
        assertThat(groupDenied.err()).contains("groups \"system:masters\" is forbidden: User \"carol\" cannot"
                + " impersonate resource \"groups\" in API group \"\" at the cluster scope");
        kubectl("delete", "clusterrolebinding", "carol-as-alice-" + ns);
        kubectl("delete", "clusterrole", "impersonate-alice-" + ns);
    }

    @Test
    void explainShowsThePublishedDescriptions() {
        Run r = kubectl("explain", "deployment.spec.replicas");
        assertThat(r.exit()).as(r.all()).isZero();
        assertThat(r.out()).contains("How many pods to run. Defaults to 1.");
        Run pod = kubectl("explain", "pods.spec.restartPolicy");
        assertThat(pod.out()).contains("Whether containers are restarted when they exit");
        for (String[] field : new String[][] {
                {"svc.spec.clusterIP", "handed out from the Service CIDR unless asked for"},
                {"pdb.spec.maxUnavailable", "a percentage of the pods' controller's scale"},
                {"rc.spec.selector", "defaults to the template's labels"},
                {"cronjob.spec.schedule", "in cron format"},
                {"jobs.spec.backoffLimit", "Defaults to 6."}}) {
            Run explained = kubectl("explain", field[0]);
            assertThat(explained.exit()).as(explained.all()).isZero();
            assertThat(explained.out().replaceAll("\\s+", " ")).as(field[0]).contains(field[1]);
        }
        // the same from /openapi/v2, read in its protobuf form
        Run v2 = kubectl("explain", "deployment.spec.replicas", "--output=plaintext-openapiv2");
        assertThat(v2.exit()).as(v2.all()).isZero();
        assertThat(v2.out()).contains("KIND:     Deployment", "FIELD:    replicas <integer>",
                "How many pods to run. Defaults to 1.");
        Run fields = kubectl("explain", "pods.spec.containers", "--output=plaintext-openapiv2");
        assertThat(fields.exit()).as(fields.all()).isZero();
        // kubectl's v2 explain calls every object type "Object"
        assertThat(fields.out()).contains("RESOURCE: containers <[]Object>", "image\t<string> -required-",
                "The container image to run.");
    }

    @Test
    void diffOfAnUnchangedServerSideAppliedObjectShowsNothing() throws IOException {
        Path cm = file("diff.yaml", """
                apiVersion: v1
                kind: ConfigMap
                metadata:
                  name: diffme
                data:
                  a: "1"
                """);
        Run applied = kubectl("apply", "--server-side", "-n", ns, "-f", cm.toString());
        assertThat(applied.exit()).as(applied.all()).isZero();
        Run diff = kubectl("diff", "-n", ns, "-f", cm.toString());
        assertThat(diff.exit()).as(diff.all()).isZero();
        assertThat(diff.out()).isEmpty();
    }

    @Test
    void topReadsTheMetricsApiAndDebugAddsAnEphemeralContainer() {
        Run top = kubectl("top", "pods", "-n", ns);
        assertThat(top.all()).doesNotContain("Metrics API not available").contains("No resources found in " + ns
                + " namespace.");
        Run pod = kubectl("run", "dbg", "-n", ns, "--image=busybox:1.36", "--restart=Never");
        assertThat(pod.exit()).as(pod.all()).isZero();
        Run debug = kubectl("debug", "dbg", "-n", ns, "--image=busybox:1.36", "--profile=general", "--", "sh");
        assertThat(debug.exit()).as(debug.all()).isZero();
        assertThat(debug.all()).contains("Defaulting debug container name to debugger-");
        Run added = kubectl("get", "pod", "dbg", "-n", ns, "-o", "jsonpath={.spec.ephemeralContainers[0].image}");
        assertThat(added.out()).isEqualTo("busybox:1.36");
    }

    @Test
    void createRefusesInvalidObjectsWithTheServersMessage() throws IOException {
        Path bad = file("bad.yaml", """
                apiVersion: v1
                kind: ConfigMap
                metadata:
                  name: Bad_Name
                data:
                  a: b
                """);
        Run r = kubectl("create", "-n", ns, "-f", bad.toString());
        assertThat(r.exit()).isNotZero();
        assertThat(r.err()).contains("is invalid", "metadata.name", "Bad_Name");
        Path unknown = file("unknown.yaml", """
                apiVersion: v1
                kind: ConfigMap
                metadata:
                  name: ok
                spec:
                  nope: 1
                """);
        Run strict = kubectl("create", "-n", ns, "-f", unknown.toString());
        assertThat(strict.exit()).isNotZero();
        assertThat(strict.err()).contains("unknown field \"spec\"");
    }

    private static void waitFor(Path file, String text, String orText, int seconds) throws Exception {
        long deadline = System.currentTimeMillis() + seconds * 1000L;
        while (System.currentTimeMillis() < deadline) {
            String s = Files.exists(file) ? Files.readString(file) : "";
            if (s.contains(text) || (orText != null && s.contains(orText))) {
                return;
            }
            Thread.sleep(100);
        }
        // kubectl get -w prints nothing for an empty list with --output-watch-events; give it a moment
        if (orText == null) {
            throw new AssertionError("did not see " + text + " in " + Files.readString(file));
        }
    }

    @Test
    void exposeCreateServiceAndGetServices() {
        Run deploy = kubectl("-n", ns, "create", "deployment", "web", "--image=nginx:1.27");
        assertThat(deploy.exit()).as(deploy.all()).isZero();
        Run exposed = kubectl("-n", ns, "expose", "deployment", "web", "--port=80", "--target-port=8080");
        assertThat(exposed.exit()).as(exposed.all()).isZero();
        assertThat(exposed.out()).contains("service/web exposed");
        Run nodePort = kubectl("-n", ns, "create", "service", "nodeport", "edge", "--tcp=443:8443", "--node-port=30443");
        assertThat(nodePort.exit()).as(nodePort.all()).isZero();
        Run again = kubectl("-n", ns, "create", "service", "nodeport", "edge2", "--tcp=443:8443", "--node-port=30443");
        assertThat(again.exit()).isNotZero();
        assertThat(again.all()).contains("spec.ports[0].nodePort: Invalid value: 30443: provided port is already allocated");
        Run got = kubectl("-n", ns, "get", "svc", "-o", "wide");
        assertThat(got.exit()).as(got.all()).isZero();
        assertThat(got.out()).contains("NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "SELECTOR")
                .containsPattern("web\\s+ClusterIP\\s+10\\.\\d+\\.\\d+\\.\\d+\\s+<none>\\s+80/TCP\\s+\\S+\\s+app=web")
                .containsPattern("edge\\s+NodePort\\s+10\\.[\\d.]+\\s+<none>\\s+443:30443/TCP");
        Run json = kubectl("-n", ns, "get", "svc", "web", "-o", "jsonpath={.spec.selector.app} {.spec.ports[0].targetPort}");
        assertThat(json.out()).isEqualTo("web 8080");
        assertThat(kubectl("-n", ns, "delete", "svc", "edge").exit()).isZero();
        // a load balancer gets an address of the pool, printed as its external IP
        Run lb = kubectl("-n", ns, "create", "service", "loadbalancer", "front", "--tcp=80:8080");
        assertThat(lb.exit()).as(lb.all()).isZero();
        eventually(() -> assertThat(kubectl("-n", ns, "get", "svc", "front").out())
                .containsPattern("front\\s+LoadBalancer\\s+10\\.[\\d.]+\\s+198\\.51\\.100\\.\\d+\\s+80:3\\d{4}/TCP"));
        assertThat(kubectl("-n", ns, "delete", "svc", "front").exit()).isZero();
    }
}
