package io.cybernetes.controller.daemon;

import io.cybernetes.apiserver.Kubectl;
import io.cybernetes.apiserver.SimulatedClusterSupport;
import io.fabric8.kubernetes.api.model.TaintBuilder;
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

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * DaemonSets on simulated nodes of the test's own, through kubectl: one pod on every node
 * the template admits (by node selector and taints), following nodes as they come, change
 * and are cordoned; a changed template rolled out node by node, its revisions kept as
 * ControllerRevisions, rolled back and restarted; columns as kubectl prints them; and bad
 * DaemonSets refused in Kubernetes' words.
 */
class DaemonSetKubectlTest extends SimulatedClusterSupport {

    @TempDir
    Path dir;

    private Kubectl kubectl() {
        return new Kubectl(endpoints.adminKubeconfig(), dir);
    }

    private Kubectl.Run apply(String ns, String yaml) throws Exception {
        Path manifest = Files.createTempFile(dir, "ds", ".yaml");
        Files.writeString(manifest, yaml, StandardCharsets.UTF_8);
        Kubectl.Run r = kubectl().run("-n", ns, "apply", "-f", manifest.toString());
        assertThat(r.exit()).as(r.all()).isZero();
        return r;
    }

    private static String daemonSet(String name, String pool, String image) {
        return """
                apiVersion: apps/v1
                kind: DaemonSet
                metadata:
                  name: NAME
                spec:
                  selector:
                    matchLabels:
                      app: NAME
                  template:
                    metadata:
                      labels:
                        app: NAME
                    spec:
                      nodeSelector:
                        pool: POOL
                      containers:
                      - name: agent
                        image: IMAGE
                """.replace("NAME", name).replace("POOL", pool).replace("IMAGE", image);
    }

    /** The DaemonSet's running pods by node, as {@code node=image}. */
    private List<String> podsByNode(String ns, String app) {
        List<String> out = new ArrayList<>();
        for (JsonNode p : get("/api/v1/namespaces/" + ns + "/pods?labelSelector=app%3D" + app).json().path("items")) {
            if ("Running".equals(p.path("status").path("phase").asString()) && !p.path("metadata").has("deletionTimestamp")) {
                out.add(p.path("spec").path("nodeName").asString() + "=" + p.path("spec").path("containers").path(0)
                        .path("image").asString());
            }
        }
        return out;
    }

    @Test
    void aDaemonSetRunsOnEveryNodeItsTemplateAdmitsAndFollowsTheNodes() throws Exception {
        startNodes(node("ds-a", "4", "zone-d", Map.of("pool", "ds"), List.of()),
                node("ds-b", "4", "zone-d", Map.of("pool", "ds"), List.of()),
                node("ds-c", "4", "zone-d", Map.of("pool", "ds"), List.of(new TaintBuilder().withKey("dedicated")
                        .withValue("gpu").withEffect("NoSchedule").build())));
        String ns = "daemons";
        assertThat(createNamespace(ns).code()).isIn(201, 409);
        apply(ns, daemonSet("agent", "ds", "fluentd:1"));
        // ds-c's taint is not tolerated: two pods, not three
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(podsByNode(ns, "agent"))
                .containsExactlyInAnyOrder("ds-a=fluentd:1", "ds-b=fluentd:1"));
        JsonNode pod = get("/api/v1/namespaces/" + ns + "/pods?labelSelector=app%3Dagent").json().path("items").path(0);
        assertThat(pod.path("metadata").path("labels").path("pod-template-generation").asString()).isEqualTo("1");
        assertThat(pod.path("metadata").path("labels").path("controller-revision-hash").asString()).isNotEmpty();
        assertThat(pod.path("metadata").path("ownerReferences").path(0).path("kind").asString()).isEqualTo("DaemonSet");
        assertThat(pod.path("spec").path("affinity").path("nodeAffinity")
                .path("requiredDuringSchedulingIgnoredDuringExecution").path("nodeSelectorTerms").path(0)
                .path("matchFields").path(0).path("key").asString()).isEqualTo("metadata.name");
        assertThat(pod.path("spec").path("tolerations").toString()).contains("node.kubernetes.io/unschedulable",
                "node.kubernetes.io/not-ready", "node.kubernetes.io/disk-pressure");
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(kubectl().run("-n", ns, "get", "ds")
                .out()).containsPattern("NAME\\s+DESIRED\\s+CURRENT\\s+READY\\s+UP-TO-DATE\\s+AVAILABLE\\s+NODE SELECTOR"
                        + "\\s+AGE").containsPattern("agent\\s+2\\s+2\\s+2\\s+2\\s+2\\s+pool=ds\\s+\\d+s"));
        Kubectl.Run revisions = kubectl().run("-n", ns, "get", "controllerrevisions");
        assertThat(revisions.out()).containsPattern("NAME\\s+CONTROLLER\\s+REVISION\\s+AGE")
                .containsPattern("agent-\\w+\\s+daemonset.apps/agent\\s+1\\s+");

        // a cordoned node keeps its pod; a new node gets one; a node that stops matching loses its pod
        assertThat(kubectl().run("cordon", "ds-a").exit()).isZero();
        startNodes(node("ds-d", "4", "zone-d", Map.of("pool", "ds"), List.of()));
        assertThat(kubectl().run("label", "node", "ds-b", "pool-").exit()).isZero();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(podsByNode(ns, "agent"))
                .containsExactlyInAnyOrder("ds-a=fluentd:1", "ds-d=fluentd:1"));
        // a NoExecute taint it does not tolerate removes it
        assertThat(kubectl().run("taint", "node", "ds-d", "evict=now:NoExecute").exit()).isZero();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(podsByNode(ns, "agent"))
                .containsExactly("ds-a=fluentd:1"));
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            JsonNode status = get("/apis/apps/v1/namespaces/" + ns + "/daemonsets/agent").json().path("status");
            assertThat(status.path("desiredNumberScheduled").asInt()).isEqualTo(1);
            assertThat(status.path("numberAvailable").asInt()).isEqualTo(1);
            assertThat(status.path("numberMisscheduled").asInt()).isZero();
        });
        assertThat(kubectl().run("uncordon", "ds-a").exit()).isZero();
        assertThat(kubectl().run("delete", "namespace", ns, "--wait=false").exit()).isZero();
    }

    @Test
    void aChangedTemplateRollsOutNodeByNodeAndRollsBack() throws Exception {
        startNodes(node("roll-a", "4", "zone-r", Map.of("pool", "roll"), List.of()),
                node("roll-b", "4", "zone-r", Map.of("pool", "roll"), List.of()),
                node("roll-c", "4", "zone-r", Map.of("pool", "roll"), List.of()));
        String ns = "daemon-rollout";
        assertThat(createNamespace(ns).code()).isIn(201, 409);
        apply(ns, daemonSet("collector", "roll", "collector:1"));
        Kubectl.Run first = kubectl().run("-n", ns, "rollout", "status", "ds/collector", "--timeout=60s");
        assertThat(first.exit()).as(first.all()).isZero();
        assertThat(first.out()).contains("daemon set \"collector\" successfully rolled out");
        assertThat(podsByNode(ns, "collector")).hasSize(3);

        Kubectl.Run set = kubectl().run("-n", ns, "set", "image", "ds/collector", "agent=collector:2");
        assertThat(set.exit()).as(set.all()).isZero();
        Kubectl.Run second = kubectl().run("-n", ns, "rollout", "status", "ds/collector", "--timeout=90s");
        assertThat(second.exit()).as(second.all()).isZero();
        assertThat(second.out()).contains("daemon set \"collector\" successfully rolled out");
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(podsByNode(ns, "collector"))
                .containsExactlyInAnyOrder("roll-a=collector:2", "roll-b=collector:2", "roll-c=collector:2"));
        JsonNode ds = get("/apis/apps/v1/namespaces/" + ns + "/daemonsets/collector").json();
        assertThat(ds.path("metadata").path("annotations").path("deprecated.daemonset.template.generation").asString())
                .isEqualTo("2");
        assertThat(get("/api/v1/namespaces/" + ns + "/pods?labelSelector=app%3Dcollector").json().path("items")
                .findValuesAsString("pod-template-generation")).containsOnly("2");
        Kubectl.Run history = kubectl().run("-n", ns, "rollout", "history", "ds/collector");
        assertThat(history.exit()).as(history.all()).isZero();
        assertThat(history.out()).containsPattern("REVISION\\s+CHANGE-CAUSE").containsPattern("(?m)^1\\s")
                .containsPattern("(?m)^2\\s");

        // back to the first template: its revision comes back as number 3, no new one is made
        Kubectl.Run undo = kubectl().run("-n", ns, "rollout", "undo", "ds/collector");
        assertThat(undo.exit()).as(undo.all()).isZero();
        assertThat(undo.out()).contains("daemonset.apps/collector rolled back");
        assertThat(kubectl().run("-n", ns, "rollout", "status", "ds/collector", "--timeout=90s").exit()).isZero();
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(podsByNode(ns, "collector"))
                .containsExactlyInAnyOrder("roll-a=collector:1", "roll-b=collector:1", "roll-c=collector:1"));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(kubectl().run("-n", ns, "get",
                "controllerrevisions", "-o", "jsonpath={.items[*].revision}").out().split(" "))
                .containsExactlyInAnyOrder("2", "3"));

        // a restart is a new template: every pod is replaced
        List<String> before = get("/api/v1/namespaces/" + ns + "/pods?labelSelector=app%3Dcollector").json()
                .path("items").findValuesAsString("uid");
        assertThat(kubectl().run("-n", ns, "rollout", "restart", "ds/collector").exit()).isZero();
        assertThat(kubectl().run("-n", ns, "rollout", "status", "ds/collector", "--timeout=90s").exit()).isZero();
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            List<String> after = new ArrayList<>();
            for (JsonNode p : get("/api/v1/namespaces/" + ns + "/pods?labelSelector=app%3Dcollector").json()
                    .path("items")) {
                if (!p.path("metadata").has("deletionTimestamp")) {
                    after.add(p.path("metadata").path("uid").asString());
                }
            }
            assertThat(after).hasSize(3).doesNotContainAnyElementsOf(before);
        });
        assertThat(kubectl().run("delete", "namespace", ns, "--wait=false").exit()).isZero();
    }

    @Test
    void badDaemonSetsAndRevisionsAreRefusedInKubernetesWords() {
        String ns = "daemon-refusals";
        assertThat(createNamespace(ns).code()).isIn(201, 409);
        String sets = "/apis/apps/v1/namespaces/" + ns + "/daemonsets";
        String pod = "\"template\":{\"metadata\":{\"labels\":{\"app\":\"x\"}},\"spec\":{%s\"containers\":[{\"name\":\"c\","
                + "\"image\":\"busybox\"}]}}";
        Response never = post(sets, "{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\",\"metadata\":{\"name\":\"never\"},"
                + "\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"x\"}}," + pod.formatted("\"restartPolicy\":"
                + "\"Never\",") + "}}");
        assertThat(never.code()).isEqualTo(422);
        assertThat(never.text("message")).isEqualTo("DaemonSet.apps \"never\" is invalid: spec.template.spec.restartPolicy:"
                + " Unsupported value: \"Never\": supported values: \"Always\"");
        Response stuck = post(sets, "{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\",\"metadata\":{\"name\":\"stuck\"},"
                + "\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"x\"}},\"updateStrategy\":{\"type\":\"RollingUpdate\","
                + "\"rollingUpdate\":{\"maxUnavailable\":0,\"maxSurge\":0}}," + pod.formatted("") + "}}");
        assertThat(stuck.code()).isEqualTo(422);
        assertThat(stuck.text("message")).contains("spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 0:"
                + " may not be 0 when `maxSurge` is 0");
        Response mismatch = post(sets, "{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\",\"metadata\":{\"name\":\"mis\"},"
                + "\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"y\"}}," + pod.formatted("") + "}}");
        assertThat(mismatch.code()).isEqualTo(422);
        assertThat(mismatch.text("message")).contains("`selector` does not match template `labels`");
        Response ok = post(sets, "{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\",\"metadata\":{\"name\":\"ok\"},"
                + "\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"x\"}}," + pod.formatted("\"nodeSelector\":"
                + "{\"pool\":\"nowhere\"},") + "}}");
        assertThat(ok.code()).as(ok.body()).isEqualTo(201);
        JsonNode spec = ok.json().path("spec");
        assertThat(spec.path("updateStrategy").toString())
                .isEqualTo("{\"type\":\"RollingUpdate\",\"rollingUpdate\":{\"maxUnavailable\":1,\"maxSurge\":0}}");
        assertThat(spec.path("revisionHistoryLimit").asInt()).isEqualTo(10);
        Response moved = patch(sets + "/ok", "application/merge-patch+json", "{\"spec\":{\"selector\":{\"matchLabels\":"
                + "{\"app\":\"x\",\"tier\":\"a\"}},\"template\":{\"metadata\":{\"labels\":{\"tier\":\"a\"}}}}}");
        assertThat(moved.code()).isEqualTo(422);
        assertThat(moved.text("message")).contains("spec.selector: Invalid value: field is immutable");
        for (String name : List.of("never", "stuck", "mis")) {
            assertThat(get(sets + "/" + name).code()).isEqualTo(404);
        }
        // a revision's data never changes
        String revisions = "/apis/apps/v1/namespaces/" + ns + "/controllerrevisions";
        Response noData = post(revisions, "{\"apiVersion\":\"apps/v1\",\"kind\":\"ControllerRevision\",\"metadata\":"
                + "{\"name\":\"r0\"},\"revision\":1}");
        assertThat(noData.code()).isEqualTo(422);
        assertThat(noData.text("message")).contains("data: Required value: data is mandatory");
        Response r1 = post(revisions, "{\"apiVersion\":\"apps/v1\",\"kind\":\"ControllerRevision\",\"metadata\":"
                + "{\"name\":\"r1\"},\"revision\":1,\"data\":{\"spec\":{\"a\":1}}}");
        assertThat(r1.code()).as(r1.body()).isEqualTo(201);
        Response changed = patch(revisions + "/r1", "application/merge-patch+json", "{\"data\":{\"spec\":{\"a\":2}}}");
        assertThat(changed.code()).isEqualTo(422);
        assertThat(changed.text("message")).contains("data: Invalid value: field is immutable");
        Response bumped = patch(revisions + "/r1", "application/merge-patch+json", "{\"revision\":4}");
        assertThat(bumped.code()).as(bumped.body()).isEqualTo(200);
    }
}
