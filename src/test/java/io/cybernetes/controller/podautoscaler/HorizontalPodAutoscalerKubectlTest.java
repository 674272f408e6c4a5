package io.cybernetes.controller.podautoscaler;

import io.cybernetes.apiserver.Kubectl;
import io.cybernetes.apiserver.SimulatedClusterSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The horizontal pod autoscaler end to end: {@code kubectl autoscale}, the simulated load
 * (the pods' usage annotation) driven up and down, the replicas following it within the
 * autoscaler's behavior, the columns and conditions kubectl shows, v1 and v2 views of one
 * object, and the refusals and conditions of bad autoscalers.
 */
class HorizontalPodAutoscalerKubectlTest extends SimulatedClusterSupport {

    static final String NS = "autoscaling";
    static final String HPAS = "/apis/autoscaling/v2/namespaces/" + NS + "/horizontalpodautoscalers";
    static final String DEPLOYMENTS = "/apis/apps/v1/namespaces/" + NS + "/deployments";

    @TempDir
    Path dir;

    private Kubectl kubectl() {
        return new Kubectl(endpoints.adminKubeconfig(), dir);
    }

    private static String deployment(String name, String usage) {
        return """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: %s, namespace: %s}
                spec:
                  replicas: 1
                  selector: {matchLabels: {app: %s}}
                  template:
                    metadata:
                      labels: {app: %s}
                      annotations: {cybernetes.io/usage: "%s"}
                    spec:
                      containers:
                      - name: web
                        image: nginx
                        resources: {requests: {cpu: 100m, memory: 64Mi}}
                """.formatted(name, NS, name, name, usage);
    }

    private void load(String deployment, String usage) {
        Kubectl.Run r = kubectl().run("patch", "deployment", deployment, "-n", NS, "--type=merge", "-p",
                "{\"spec\":{\"template\":{\"metadata\":{\"annotations\":{\"cybernetes.io/usage\":\"" + usage + "\"}}}}}");
        assertThat(r.exit()).as(r.err()).isZero();
    }

    private int replicas(String deployment) {
        return get(DEPLOYMENTS + "/" + deployment).json().path("spec").path("replicas").asInt();
    }

    private List<String> rescales(String hpa) {
        JsonNode events = get("/api/v1/namespaces/" + NS + "/events?fieldSelector=involvedObject.name%3D" + hpa).json();
        List<String> out = new ArrayList<>();
        for (JsonNode e : events.path("items")) {
            if ("SuccessfulRescale".equals(e.path("reason").asString())) {
                out.add(e.path("message").asString());
            }
        }
        return out;
    }

    @Test
    void replicasFollowTheLoadUpAndDownWithinTheBehavior() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        Kubectl.Run applied = kubectl().runWithInput(deployment("web", "cpu=50m"), "apply", "-f", "-");
        assertThat(applied.exit()).as(applied.err()).isZero();
        Kubectl.Run autoscaled = kubectl().run("autoscale", "deployment", "web", "-n", NS, "--min=1", "--max=5",
                "--cpu-percent=50");
        assertThat(autoscaled.out()).contains("horizontalpodautoscaler.autoscaling/web autoscaled");
        // scale up by at most 2 pods every 10 s; scale down after 2 s of lower recommendations
        Kubectl.Run patched = kubectl().run("patch", "hpa", "web", "-n", NS, "--type=merge", "-p", """
                {"spec":{"behavior":{"scaleUp":{"stabilizationWindowSeconds":0,"policies":[{"type":"Pods","value":2,\
                "periodSeconds":10}]},"scaleDown":{"stabilizationWindowSeconds":2}}}}""");
        assertThat(patched.exit()).as(patched.err()).isZero();
        JsonNode hpa = get(HPAS + "/web").json();
        assertThat(hpa.path("spec").path("behavior").path("scaleDown").path("policies").get(0).path("type").asString())
                .isEqualTo("Percent"); // the rules left out are Kubernetes' defaults
        assertThat(hpa.path("spec").path("behavior").path("scaleUp").path("selectPolicy").asString()).isEqualTo("Max");

        // at the target: nothing moves
        await().atMost(Duration.ofSeconds(40)).untilAsserted(() -> {
            Kubectl.Run table = kubectl().run("get", "hpa", "web", "-n", NS);
            assertThat(table.out()).containsPattern("NAME\\s+REFERENCE\\s+TARGETS\\s+MINPODS\\s+MAXPODS\\s+REPLICAS\\s+AGE")
                    .containsPattern("web\\s+Deployment/web\\s+cpu: 50%/50%\\s+1\\s+5\\s+1\\s+");
        });
        JsonNode steady = get(HPAS + "/web").json().path("status");
        assertThat(condition(steady, "ScalingActive").path("reason").asString()).isEqualTo("ValidMetricFound");
        assertThat(condition(steady, "ScalingActive").path("message").asString()).isEqualTo("the HPA was able to"
                + " successfully calculate a replica count from cpu resource utilization (percentage of request)");
        assertThat(replicas("web")).isEqualTo(1);

        // four times the target: up to 5, two pods at a time
        load("web", "cpu=200m");
        await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> assertThat(replicas("web"))
                .as(() -> get(HPAS + "/web").json().path("status") + "\n" + kubectl().run("get", "pods", "-n", NS,
                        "-o", "wide").out() + kubectl().run("top", "pods", "-n", NS).all()).isEqualTo(5));
        assertThat(rescales("web")).containsSubsequence(
                "New size: 3; reason: cpu resource utilization (percentage of request) above target",
                "New size: 5; reason: cpu resource utilization (percentage of request) above target");
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonNode st = get(HPAS + "/web").json().path("status");
            assertThat(condition(st, "ScalingLimited").path("reason").asString()).isEqualTo("TooManyReplicas");
            assertThat(condition(st, "ScalingLimited").path("status").asString()).isEqualTo("True");
        });
        JsonNode v1 = kubectl().run("get", "horizontalpodautoscalers.v1.autoscaling", "web", "-n", NS, "-o", "json").out().transform(
                s -> io.cybernetes.api.Json.MAPPER.readTree(s));
        assertThat(v1.path("spec").path("targetCPUUtilizationPercentage").asInt()).isEqualTo(50);
        assertThat(v1.path("status").path("currentCPUUtilizationPercentage").asInt()).isGreaterThan(50);
        assertThat(v1.path("metadata").path("annotations").path("autoscaling.alpha.kubernetes.io/behavior").asString())
                .contains("\"periodSeconds\":10");

        // a tenth of it: back to 1
        load("web", "cpu=10m");
        await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> assertThat(replicas("web")).isEqualTo(1));
        assertThat(rescales("web")).contains("New size: 1; reason: All metrics below target");
        Kubectl.Run described = kubectl().run("describe", "hpa", "web", "-n", NS);
        assertThat(described.out()).contains("Reference:").contains("Deployment/web")
                .contains("SuccessfulRescale");
    }

    private static JsonNode condition(JsonNode status, String type) {
        for (JsonNode c : status.path("conditions")) {
            if (type.equals(c.path("type").asString())) {
                return c;
            }
        }
        return io.cybernetes.api.Json.object();
    }

    @Test
    void badAutoscalersAreRefusedOrSayWhyTheyCannotScale() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        Response inverted = post(HPAS, """
                {"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"inverted"},
                 "spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},
                 "minReplicas":5,"maxReplicas":2}}""");
        assertThat(inverted.code()).isEqualTo(422);
        assertThat(inverted.text("message")).isEqualTo("HorizontalPodAutoscaler.autoscaling \"inverted\" is invalid:"
                + " spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`");
        assertThat(get(HPAS + "/inverted").code()).isEqualTo(404);
        Response noSource = post(HPAS, """
                {"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"nosource"},
                 "spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},
                 "maxReplicas":2,"metrics":[{"type":"Resource"}]}}""");
        assertThat(noSource.code()).isEqualTo(422);
        assertThat(noSource.text("message")).contains("spec.metrics[0].resource: Required value: must populate"
                + " information for the given metric source");

        assertThat(post("/api/v1/namespaces/" + NS + "/configmaps", "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                + "\"metadata\":{\"name\":\"settings\"}}").code()).isIn(201, 409);
        assertThat(post(HPAS, """
                {"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"unscalable"},
                 "spec":{"scaleTargetRef":{"apiVersion":"v1","kind":"ConfigMap","name":"settings"},
                 "maxReplicas":3}}""").code()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            JsonNode able = condition(get(HPAS + "/unscalable").json().path("status"), "AbleToScale");
            assertThat(able.path("status").asString()).isEqualTo("False");
            assertThat(able.path("reason").asString()).isEqualTo("FailedGetScale");
            assertThat(able.path("message").asString()).isEqualTo("the HPA controller was unable to get the target's"
                    + " current scale: the server could not find the requested resource");
        });
        assertThat(post(HPAS, """
                {"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"nokind"},
                 "spec":{"scaleTargetRef":{"apiVersion":"example.com/v1","kind":"Widget","name":"w"},
                 "maxReplicas":3}}""").code()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(condition(get(HPAS + "/nokind").json()
                .path("status"), "AbleToScale").path("message").asString()).isEqualTo("the HPA controller was unable"
                + " to get the target's current scale: no matches for kind \"Widget\" in group \"example.com\""));
        // a v1 object without a target gets the default one
        Response v1 = post("/apis/autoscaling/v1/namespaces/" + NS + "/horizontalpodautoscalers", """
                {"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"plain"},
                 "spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"absent"},"maxReplicas":3}}""");
        assertThat(v1.code()).isEqualTo(201);
        JsonNode asV2 = get(HPAS + "/plain").json();
        assertThat(asV2.path("spec").path("minReplicas").asInt()).isEqualTo(1);
        assertThat(asV2.path("spec").path("metrics").get(0).path("resource").path("target").path("averageUtilization")
                .asInt()).isEqualTo(80);
    }
}
