package io.cybernetes.controller.statefulset;

import io.cybernetes.apiserver.Kubectl;
import io.cybernetes.apiserver.SimulatedClusterSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * StatefulSets on the simulated cluster through kubectl: pods with stable names made one
 * after another (each once the one before is ready) with a claim each, removed from the
 * highest ordinal down, a template rolled out above the partition and rolled back, claims
 * kept or deleted as the retention policy says, and refusals in Kubernetes' words.
 */
class StatefulSetKubectlTest extends SimulatedClusterSupport {

    @TempDir
    Path dir;

    private Kubectl kubectl() {
        return new Kubectl(endpoints.adminKubeconfig(), dir);
    }

    private void apply(String ns, String yaml) throws Exception {
        Path manifest = Files.createTempFile(dir, "sts", ".yaml");
        Files.writeString(manifest, yaml, StandardCharsets.UTF_8);
        Kubectl.Run r = kubectl().run("-n", ns, "apply", "-f", manifest.toString());
        assertThat(r.exit()).as(r.all()).isZero();
    }

    private static String statefulSet(String name, int replicas, String image, String extraSpec) {
        return """
                apiVersion: apps/v1
                kind: StatefulSet
                metadata:
                  name: NAME
                spec:
                  serviceName: NAME
                  replicas: REPLICAS
                EXTRA
                  selector:
                    matchLabels:
                      app: NAME
                  template:
                    metadata:
                      labels:
                        app: NAME
                    spec:
                      containers:
                      - name: db
                        image: IMAGE
                        volumeMounts:
                        - name: data
                          mountPath: /var/lib/data
                  volumeClaimTemplates:
                  - metadata:
                      name: data
                    spec:
                      accessModes: [ReadWriteOnce]
                      resources:
                        requests:
                          storage: 1Gi
                """.replace("NAME", name).replace("REPLICAS", Integer.toString(replicas)).replace("IMAGE", image)
                .replace("EXTRA\n", extraSpec.isEmpty() ? "" : extraSpec.indent(2));
    }

    /** The set's pods that are not being deleted, by name, with their image and whether they are ready. */
    private Map<String, String> pods(String ns, String app) {
        Map<String, String> out = new TreeMap<>();
        for (JsonNode p : get("/api/v1/namespaces/" + ns + "/pods?labelSelector=app%3D" + app).json().path("items")) {
            if (p.path("metadata").has("deletionTimestamp")) {
                continue;
            }
            boolean ready = false;
            for (JsonNode c : p.path("status").path("conditions")) {
                ready |= "Ready".equals(c.path("type").asString()) && "True".equals(c.path("status").asString());
            }
            out.put(p.path("metadata").path("name").asString(), p.path("spec").path("containers").path(0)
                    .path("image").asString() + (ready ? "" : " (not ready)"));
        }
        return out;
    }

    private List<String> claims(String ns) {
        List<String> out = new ArrayList<>();
        get("/api/v1/namespaces/" + ns + "/persistentvolumeclaims").json().path("items")
                .forEach(c -> out.add(c.path("metadata").path("name").asString()));
        return out;
    }

    @Test
    void podsComeInOrderWithStableNamesAndClaimsAndGoFromTheHighestDown() throws Exception {
        String ns = "stateful";
        assertThat(createNamespace(ns).code()).isIn(201, 409);
        apply(ns, statefulSet("web", 3, "postgres:16", ""));
        // each pod is made only once the one before it is running and ready
        List<String> violations = new ArrayList<>();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20)).until(() -> {
            Map<String, String> now = pods(ns, "web");
            for (int i = 1; i < 3; i++) {
                if (now.containsKey("web-" + i) && !"postgres:16".equals(now.get("web-" + (i - 1)))) {
                    violations.add("web-" + i + " while " + now);
                }
            }
            return now.values().stream().filter("postgres:16"::equals).count() == 3;
        });
        assertThat(violations).isEmpty();
        assertThat(claims(ns)).containsExactlyInAnyOrder("data-web-0", "data-web-1", "data-web-2");
        JsonNode pod = get("/api/v1/namespaces/" + ns + "/pods/web-1").json();
        assertThat(pod.path("spec").path("hostname").asString()).isEqualTo("web-1");
        assertThat(pod.path("spec").path("subdomain").asString()).isEqualTo("web");
        assertThat(pod.path("metadata").path("labels").path("statefulset.kubernetes.io/pod-name").asString())
                .isEqualTo("web-1");
        assertThat(pod.path("metadata").path("labels").path("apps.kubernetes.io/pod-index").asString()).isEqualTo("1");
        assertThat(pod.path("metadata").path("labels").path("controller-revision-hash").asString()).startsWith("web-");
        assertThat(pod.path("spec").path("volumes").toString()).contains("\"claimName\":\"data-web-1\"");
        JsonNode claim = get("/api/v1/namespaces/" + ns + "/persistentvolumeclaims/data-web-1").json();
        assertThat(claim.path("metadata").path("labels").path("app").asString()).isEqualTo("web");
        assertThat(claim.path("spec").path("volumeMode").asString()).isEqualTo("Filesystem");
        Kubectl.Run status = kubectl().run("-n", ns, "rollout", "status", "sts/web", "--timeout=30s");
        assertThat(status.out()).contains("partitioned roll out complete: 3 new pods have been updated...");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(kubectl().run("-n", ns, "get", "sts")
                .out()).containsPattern("NAME\\s+READY\\s+AGE").containsPattern("web\\s+3/3\\s+"));

        // scaled down: the highest ordinals go, their claims stay (Retain)
        assertThat(kubectl().run("-n", ns, "scale", "sts/web", "--replicas=1").exit()).isZero();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(pods(ns, "web").keySet())
                .containsExactly("web-0"));
        assertThat(claims(ns)).containsExactlyInAnyOrder("data-web-0", "data-web-1", "data-web-2");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            JsonNode st = get("/apis/apps/v1/namespaces/" + ns + "/statefulsets/web").json().path("status");
            assertThat(st.path("replicas").asInt()).isEqualTo(1);
            assertThat(st.path("readyReplicas").asInt()).isEqualTo(1);
            assertThat(st.path("currentRevision").asString()).isEqualTo(st.path("updateRevision").asString());
        });
        assertThat(kubectl().run("delete", "namespace", ns, "--wait=false").exit()).isZero();
    }

    @Test
    void aTemplateRollsOutAboveThePartitionAndRollsBack() throws Exception {
        String ns = "stateful-rollout";
        assertThat(createNamespace(ns).code()).isIn(201, 409);
        apply(ns, statefulSet("db", 3, "postgres:15", "podManagementPolicy: Parallel\nupdateStrategy:\n"
                + "  type: RollingUpdate\n  rollingUpdate:\n    partition: 1"));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(pods(ns, "db"))
                .containsOnly(Map.entry("db-0", "postgres:15"), Map.entry("db-1", "postgres:15"),
                        Map.entry("db-2", "postgres:15")));
        assertThat(kubectl().run("-n", ns, "set", "image", "sts/db", "db=postgres:16").exit()).isZero();
        Kubectl.Run partitioned = kubectl().run("-n", ns, "rollout", "status", "sts/db", "--timeout=60s");
        assertThat(partitioned.exit()).as(partitioned.all()).isZero();
        assertThat(partitioned.out()).contains("partitioned roll out complete: 2 new pods have been updated...");
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(pods(ns, "db"))
                .containsOnly(Map.entry("db-0", "postgres:15"), Map.entry("db-1", "postgres:16"),
                        Map.entry("db-2", "postgres:16")));
        // the partition lowered to 0: the last pod follows, and the update revision becomes the current one
        assertThat(kubectl().run("-n", ns, "patch", "sts/db", "-p",
                "{\"spec\":{\"updateStrategy\":{\"rollingUpdate\":{\"partition\":0}}}}").exit()).isZero();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(pods(ns, "db")).containsOnly(Map.entry("db-0", "postgres:16"), Map.entry("db-1", "postgres:16"),
                    Map.entry("db-2", "postgres:16"));
            JsonNode st = get("/apis/apps/v1/namespaces/" + ns + "/statefulsets/db").json().path("status");
            assertThat(st.path("currentRevision").asString()).isEqualTo(st.path("updateRevision").asString());
            assertThat(st.path("updatedReplicas").asInt()).isEqualTo(3);
        });
        Kubectl.Run undo = kubectl().run("-n", ns, "rollout", "undo", "sts/db");
        assertThat(undo.exit()).as(undo.all()).isZero();
        await().atMost(Duration.ofSeconds(40)).untilAsserted(() -> assertThat(pods(ns, "db"))
                .containsOnly(Map.entry("db-0", "postgres:15"), Map.entry("db-1", "postgres:15"),
                        Map.entry("db-2", "postgres:15")));
        assertThat(kubectl().run("delete", "namespace", ns, "--wait=false").exit()).isZero();
    }

    @Test
    void claimsGoWithTheirPodsOrTheSetWhenTheRetentionPolicySaysDelete() throws Exception {
        String ns = "stateful-claims";
        assertThat(createNamespace(ns).code()).isIn(201, 409);
        apply(ns, statefulSet("cache", 2, "redis:7", "podManagementPolicy: Parallel\n"
                + "persistentVolumeClaimRetentionPolicy:\n  whenDeleted: Delete\n  whenScaled: Delete"));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(pods(ns, "cache")).hasSize(2));
        assertThat(claims(ns)).containsExactlyInAnyOrder("data-cache-0", "data-cache-1");
        assertThat(kubectl().run("-n", ns, "scale", "sts/cache", "--replicas=1").exit()).isZero();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(claims(ns))
                .containsExactly("data-cache-0"));
        assertThat(kubectl().run("-n", ns, "delete", "sts/cache").exit()).isZero();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(claims(ns)).isEmpty());
        assertThat(kubectl().run("delete", "namespace", ns, "--wait=false").exit()).isZero();
    }

    @Test
    void badStatefulSetsClaimsAndClassesAreRefusedInKubernetesWords() {
        String ns = "stateful-refusals";
        assertThat(createNamespace(ns).code()).isIn(201, 409);
        String sets = "/apis/apps/v1/namespaces/" + ns + "/statefulsets";
        String body = "{\"apiVersion\":\"apps/v1\",\"kind\":\"StatefulSet\",\"metadata\":{\"name\":\"NAME\"},\"spec\":"
                + "{\"serviceName\":\"s\",SPEC\"selector\":{\"matchLabels\":{\"app\":\"x\"}},\"template\":{\"metadata\":"
                + "{\"labels\":{\"app\":\"x\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}}}";
        Response policy = post(sets, body.replace("NAME", "p").replace("SPEC", "\"podManagementPolicy\":\"Random\","));
        assertThat(policy.code()).isEqualTo(422);
        assertThat(policy.text("message")).isEqualTo("StatefulSet.apps \"p\" is invalid: spec.podManagementPolicy:"
                + " Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel'");
        Response ok = post(sets, body.replace("NAME", "ok").replace("SPEC", "\"replicas\":0,"));
        assertThat(ok.code()).as(ok.body()).isEqualTo(201);
        assertThat(ok.json().path("spec").path("podManagementPolicy").asString()).isEqualTo("OrderedReady");
        assertThat(ok.json().path("spec").path("persistentVolumeClaimRetentionPolicy").toString())
                .isEqualTo("{\"whenDeleted\":\"Retain\",\"whenScaled\":\"Retain\"}");
        Response moved = patch(sets + "/ok", "application/merge-patch+json", "{\"spec\":{\"serviceName\":\"other\"}}");
        assertThat(moved.code()).isEqualTo(422);
        assertThat(moved.text("message")).isEqualTo("StatefulSet.apps \"ok\" is invalid: spec: Forbidden: updates to"
                + " statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy',"
                + " 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden");
        assertThat(patch(sets + "/ok", "application/merge-patch+json", "{\"spec\":{\"replicas\":2,\"minReadySeconds\":5}}")
                .code()).isEqualTo(200);
        // claims: access modes and a storage request, and only a bound claim's request may grow
        String pvcs = "/api/v1/namespaces/" + ns + "/persistentvolumeclaims";
        Response bare = post(pvcs, "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":"
                + "{\"name\":\"bare\"},\"spec\":{}}");
        assertThat(bare.code()).isEqualTo(422);
        assertThat(bare.text("message")).contains("spec.accessModes: Required value: at least 1 access mode is required",
                "spec.resources[storage]: Required value");
        // of a class nobody provisions, so that it stays unbound (the default class would bind it at once)
        Response claim = post(pvcs, "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":"
                + "{\"name\":\"c\"},\"spec\":{\"storageClassName\":\"nobody-provisions\",\"accessModes\":"
                + "[\"ReadWriteOnce\"],\"resources\":{\"requests\":{\"storage\":\"1Gi\"}}}}");
        assertThat(claim.code()).as(claim.body()).isEqualTo(201);
        assertThat(claim.text("status.phase")).isEqualTo("Pending");
        Response grown = patch(pvcs + "/c", "application/merge-patch+json", "{\"spec\":{\"resources\":{\"requests\":"
                + "{\"storage\":\"2Gi\"}}}}");
        assertThat(grown.code()).isEqualTo(422);
        assertThat(grown.text("message")).contains("spec: Forbidden: spec is immutable after creation except"
                + " resources.requests and volumeAttributesClassName for bound claims");
        Response klass = post("/apis/storage.k8s.io/v1/storageclasses", "{\"apiVersion\":\"storage.k8s.io/v1\","
                + "\"kind\":\"StorageClass\",\"metadata\":{\"name\":\"refused-class\"},\"volumeBindingMode\":\"Later\"}");
        assertThat(klass.code()).isEqualTo(422);
        assertThat(klass.text("message")).contains("provisioner: Required value", "volumeBindingMode: Unsupported value:"
                + " \"Later\": supported values: \"Immediate\", \"WaitForFirstConsumer\"");
    }
}
