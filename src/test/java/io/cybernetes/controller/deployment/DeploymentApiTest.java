package io.cybernetes.controller.deployment;

import io.cybernetes.apiserver.ApiTestSupport;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.ApiClients;
import io.cybernetes.client.ResourceEventHandler;
import io.cybernetes.client.SharedInformerFactory;
import io.cybernetes.controller.FakeKubelet;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Deployments rolled out by the application's controller manager, with pods made Running
 * by a stand-in kubelet: convergence, scaling, rolling and recreate updates (and the
 * availability they keep), pause, the progress deadline and the revision history.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeploymentApiTest extends ApiTestSupport {

    static final String NS = "deployments";
    FakeKubelet kubelet;
    ApiClient client;

    @BeforeAll
    void cluster() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        client = ApiClients.http(URI.create(url("")), null, token());
        kubelet = new FakeKubelet(client, NS, List.of("dep-node-1", "dep-node-2", "dep-node-3"), Duration.ofMillis(150));
    }

    @AfterAll
    void stop() {
        kubelet.close();
    }

    static String deployment(String name, int replicas, String image, String strategy) {
        return """
                {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"NAME"},
                 "spec":{"replicas":REPLICAS,"selector":{"matchLabels":{"app":"NAME"}},STRATEGY
                  "template":{"metadata":{"labels":{"app":"NAME"}},
                   "spec":{"containers":[{"name":"c","image":"IMAGE"}]}}}}"""
                .replace("NAME", name).replace("REPLICAS", Integer.toString(replicas)).replace("IMAGE", image)
                .replace("STRATEGY", strategy == null ? "" : strategy + ",");
    }

    private void create(String body) {
        Response r = post("/apis/apps/v1/namespaces/" + NS + "/deployments", body);
        assertThat(r.code()).as(r.body()).isEqualTo(201);
    }

    private JsonNode dep(String name) {
        return get("/apis/apps/v1/namespaces/" + NS + "/deployments/" + name).json();
    }

    private void patchDeployment(String name, String mergePatch) {
        Response r = patch("/apis/apps/v1/namespaces/" + NS + "/deployments/" + name, "application/merge-patch+json",
                mergePatch);
        assertThat(r.code()).as(r.body()).isEqualTo(200);
    }

    private static String condition(JsonNode d, String type, String field) {
        for (JsonNode c : d.path("status").path("conditions")) {
            if (type.equals(c.path("type").asString())) {
                return c.path(field).asString();
            }
        }
        return null;
    }

    /** Rolled out as kubectl rollout status judges it, with every pod of the current template Running. */
    private boolean rolledOut(String name, int replicas) {
        JsonNode d = dep(name);
        JsonNode s = d.path("status");
        return s.path("observedGeneration").asLong() >= d.path("metadata").path("generation").asLong()
                && s.path("updatedReplicas").asInt() == replicas && s.path("replicas").asInt() == replicas
                && s.path("availableReplicas").asInt() == replicas && s.path("readyReplicas").asInt() == replicas
                && "True".equals(condition(d, "Available", "status"))
                && "NewReplicaSetAvailable".equals(condition(d, "Progressing", "reason"));
    }

    private List<JsonNode> livePods(String app) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode p : get("/api/v1/namespaces/" + NS + "/pods?labelSelector=app%3D" + app).json().path("items")) {
            if (!p.path("metadata").has("deletionTimestamp")) {
                out.add(p);
            }
        }
        return out;
    }

    private List<JsonNode> replicaSets(String app) {
        List<JsonNode> out = new ArrayList<>();
        get("/apis/apps/v1/namespaces/" + NS + "/replicasets?labelSelector=app%3D" + app).json().path("items")
                .forEach(out::add);
        return out;
    }

    @Test
    void aDeploymentOfThreeConverges() {
        create(deployment("three", 3, "nginx:1", null));
        await().atMost(Duration.ofSeconds(30)).until(() -> rolledOut("three", 3));
        List<JsonNode> pods = livePods("three");
        assertThat(pods).hasSize(3).allMatch(p -> p.path("status").path("phase").asString().equals("Running"));
        List<JsonNode> sets = replicaSets("three");
        assertThat(sets).hasSize(1);
        JsonNode rs = sets.get(0);
        String hash = rs.path("metadata").path("labels").path(DeploymentController.HASH_LABEL).asString();
        assertThat(rs.path("metadata").path("name").asString()).isEqualTo("three-" + hash);
        assertThat(rs.path("spec").path("selector").path("matchLabels").path(DeploymentController.HASH_LABEL)
                .asString()).isEqualTo(hash);
        assertThat(rs.path("metadata").path("annotations").path(DeploymentController.REVISION).asString())
                .isEqualTo("1");
        assertThat(rs.path("metadata").path("ownerReferences").get(0).path("controller").asBoolean()).isTrue();
        assertThat(dep("three").path("metadata").path("annotations").path(DeploymentController.REVISION).asString())
                .isEqualTo("1");
        JsonNode view = get("/apis/status.cybernetes.io/v1/namespaces/" + NS + "/deploymentreconciles/three").json();
        assertThat(view.path("status").path("observed").path("availableReplicas").asInt()).isEqualTo(3);
        assertThat(view.path("status").path("generationLag").asInt()).isZero();
        assertThat(view.path("status").path("lastReconcile").path("controller").asString()).isEqualTo("deployment");
    }

    @Test
    void scalesUpAndDown() {
        create(deployment("scaled", 3, "nginx:1", null));
        await().atMost(Duration.ofSeconds(30)).until(() -> rolledOut("scaled", 3));
        assertThat(patch("/apis/apps/v1/namespaces/" + NS + "/deployments/scaled/scale", "application/merge-patch+json",
                "{\"spec\":{\"replicas\":10}}").code()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(30)).until(() -> rolledOut("scaled", 10));
        assertThat(livePods("scaled")).hasSize(10);
        patchDeployment("scaled", "{\"spec\":{\"replicas\":2}}");
        await().atMost(Duration.ofSeconds(30)).until(() -> rolledOut("scaled", 2) && livePods("scaled").size() == 2);
        assertThat(replicaSets("scaled")).hasSize(1);
    }

    /** Follows the pods and sets of one app: the fewest ready pods and the most replicas asked for at any moment. */
    private final class RolloutWatch implements AutoCloseable {
        final SharedInformerFactory informers = new SharedInformerFactory(client, Duration.ofMinutes(5));
        final AtomicInteger minReady = new AtomicInteger(Integer.MAX_VALUE);
        final AtomicInteger maxWanted = new AtomicInteger();
        final Set<String> imagesTogether = new HashSet<>();
        final AtomicInteger mostTemplatesAtOnce = new AtomicInteger();
        final String app;
        private volatile boolean synced;

        RolloutWatch(String app) throws InterruptedException {
            this.app = app;
            var pods = informers.informerFor(Pod.class);
            var sets = informers.informerFor(ReplicaSet.class);
            pods.addEventHandler(handler(this::measurePods));
            sets.addEventHandler(handler(this::measureSets));
            informers.start();
            assertThat(informers.waitForSync(Duration.ofSeconds(10))).isTrue();
            synced = true;
            measurePods();
            measureSets();
        }

        private <T> ResourceEventHandler<T> handler(Runnable r) {
            return new ResourceEventHandler<>() {
                @Override
                public void onAdd(T obj) {
                    r.run();
                }

                @Override
                public void onUpdate(T oldObj, T newObj) {
                    r.run();
                }

                @Override
                public void onDelete(T lastKnown, boolean finalStateUnknown) {
                    r.run();
                }
            };
        }

        /**
         * Counts the ready pods and templates once the cache holds everything (while it fills,
         * a partial picture would count too few). Each cache is read only on the thread that
         * applies its events, so that a count never mixes an object before one change with
         * another after a later one.
         */
        private synchronized void measurePods() {
            if (!synced) {
                return;
            }
            int ready = 0;
            Set<String> templates = new HashSet<>();
            for (Pod p : informers.informerFor(Pod.class).indexer().list()) {
                if (!NS.equals(p.getMetadata().getNamespace()) || !app.equals(label(p.getMetadata().getLabels()))
                        || p.getMetadata().getDeletionTimestamp() != null) {
                    continue;
                }
                String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
                if (!"Succeeded".equals(phase) && !"Failed".equals(phase)) {
                    templates.add(p.getMetadata().getLabels().get(DeploymentController.HASH_LABEL));
                }
                if (p.getStatus() != null && p.getStatus().getConditions() != null) {
                    for (PodCondition c : p.getStatus().getConditions()) {
                        if ("Ready".equals(c.getType()) && "True".equals(c.getStatus())) {
                            ready++;
                        }
                    }
                }
            }
            minReady.accumulateAndGet(ready, Math::min);
            mostTemplatesAtOnce.accumulateAndGet(templates.size(), Math::max);
        }

        /** The replicas the app's sets ask for in all. */
        private synchronized void measureSets() {
            if (!synced) {
                return;
            }
            int wanted = 0;
            for (ReplicaSet rs : informers.informerFor(ReplicaSet.class).indexer().list()) {
                if (NS.equals(rs.getMetadata().getNamespace()) && app.equals(label(rs.getMetadata().getLabels()))) {
                    wanted += Objects.requireNonNullElse(rs.getSpec().getReplicas(), 0);
                }
            }
            maxWanted.accumulateAndGet(wanted, Math::max);
        }

        private static String label(java.util.Map<String, String> labels) {
            return labels == null ? null : labels.get("app");
        }

        @Override
        public void close() {
            informers.stop();
        }
    }

    @Test
    void aRollingUpdateKeepsEnoughPodsAvailableAndStaysWithinTheSurge() throws Exception {
        create(deployment("rolling", 4, "app:v1",
                "\"strategy\":{\"type\":\"RollingUpdate\",\"rollingUpdate\":{\"maxSurge\":1,\"maxUnavailable\":1}}"));
        await().atMost(Duration.ofSeconds(30)).until(() -> rolledOut("rolling", 4));
        try (RolloutWatch watch = new RolloutWatch("rolling")) {
            patchDeployment("rolling", "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\","
                    + "\"image\":\"app:v2\"}]}}}}");
            await().atMost(Duration.ofSeconds(60)).until(() -> rolledOut("rolling", 4)
                    && livePods("rolling").stream().allMatch(p -> p.path("spec").path("containers").get(0)
                    .path("image").asString().equals("app:v2")) && livePods("rolling").size() == 4);
            assertThat(watch.minReady.get()).as("ready pods never fewer than replicas - maxUnavailable")
                    .isGreaterThanOrEqualTo(3);
            assertThat(watch.maxWanted.get()).as("replicas asked for never more than replicas + maxSurge")
                    .isLessThanOrEqualTo(5);
        }
        List<JsonNode> sets = replicaSets("rolling");
        assertThat(sets).hasSize(2);
        JsonNode old = sets.stream().filter(rs -> rs.path("spec").path("replicas").asInt() == 0).findFirst()
                .orElseThrow();
        assertThat(old.path("metadata").path("annotations").path(DeploymentController.REVISION).asString())
                .isEqualTo("1");
        assertThat(dep("rolling").path("metadata").path("annotations").path(DeploymentController.REVISION).asString())
                .isEqualTo("2");
        assertThat(get("/api/v1/namespaces/" + NS + "/events?fieldSelector=involvedObject.name=rolling").json()
                .path("items").toString()).contains("ScalingReplicaSet", "Scaled up replica set", "Scaled down");
    }

    @Test
    void recreateEndsTheOldPodsBeforeStartingNewOnes() throws Exception {
        create(deployment("recreate", 3, "app:v1", "\"strategy\":{\"type\":\"Recreate\"}"));
        await().atMost(Duration.ofSeconds(30)).until(() -> rolledOut("recreate", 3));
        try (RolloutWatch watch = new RolloutWatch("recreate")) {
            patchDeployment("recreate", "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\","
                    + "\"image\":\"app:v2\"}]}}}}");
            await().atMost(Duration.ofSeconds(60)).until(() -> rolledOut("recreate", 3) && livePods("recreate")
                    .stream().allMatch(p -> p.path("spec").path("containers").get(0).path("image").asString()
                            .equals("app:v2")));
            assertThat(watch.mostTemplatesAtOnce.get()).as("old and new pods never live together").isEqualTo(1);
            assertThat(watch.minReady.get()).as("all old pods went before new ones came").isZero();
        }
    }

    @Test
    void aPausedDeploymentDoesNotRollOutUntilResumed() {
        create(deployment("paused", 2, "app:v1", null));
        await().atMost(Duration.ofSeconds(30)).until(() -> rolledOut("paused", 2));
        patchDeployment("paused", "{\"spec\":{\"paused\":true}}");
        await().atMost(Duration.ofSeconds(10)).until(() -> "DeploymentPaused".equals(condition(dep("paused"),
                "Progressing", "reason")));
        patchDeployment("paused", "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\","
                + "\"image\":\"app:v2\"}]}}}}");
        await().atMost(Duration.ofSeconds(10)).until(() -> dep("paused").path("status").path("observedGeneration")
                .asLong() == dep("paused").path("metadata").path("generation").asLong());
        assertThat(replicaSets("paused")).as("no new ReplicaSet while paused").hasSize(1);
        patchDeployment("paused", "{\"spec\":{\"paused\":false}}");
        await().atMost(Duration.ofSeconds(60)).until(() -> replicaSets("paused").size() == 2 && rolledOut("paused", 2));
    }

    @Test
    void aRolloutThatCannotProgressExceedsItsDeadline() {
        create(deployment("stuck", 2, "app:v1", "\"progressDeadlineSeconds\":2").replace("\"labels\":{\"app\":\"stuck\"}}",
                "\"labels\":{\"app\":\"stuck\"},\"annotations\":{\"fake-kubelet/never-ready\":\"true\"}}"));
        await().atMost(Duration.ofSeconds(30)).until(() ->
                "ProgressDeadlineExceeded".equals(condition(dep("stuck"), "Progressing", "reason")));
        JsonNode d = dep("stuck");
        assertThat(condition(d, "Progressing", "status")).isEqualTo("False");
        assertThat(condition(d, "Available", "status")).isEqualTo("False");
    }

    @Test
    void keepsOnlyRevisionHistoryLimitOldReplicaSets() {
        create(deployment("history", 1, "app:v1", "\"revisionHistoryLimit\":1"));
        await().atMost(Duration.ofSeconds(30)).until(() -> rolledOut("history", 1));
        for (String v : List.of("v2", "v3", "v4")) {
            patchDeployment("history", "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\","
                    + "\"image\":\"app:" + v + "\"}]}}}}");
            await().atMost(Duration.ofSeconds(30)).until(() -> rolledOut("history", 1));
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> replicaSets("history").size() == 2);
        assertThat(dep("history").path("metadata").path("annotations").path(DeploymentController.REVISION).asString())
                .isEqualTo("4");
    }

    @Test
    void podsTheQuotaRefusesShowAsReplicaFailure() {
        String ns = "deployments-quota";
        assertThat(createNamespace(ns).code()).isIn(201, 409);
        assertThat(post("/api/v1/namespaces/" + ns + "/resourcequotas", """
                {"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"one-pod"},"spec":{"hard":{"pods":"1"}}}""")
                .code()).isEqualTo(201);
        assertThat(post("/apis/apps/v1/namespaces/" + ns + "/deployments", deployment("capped", 3, "app:v1", null))
                .code()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(30)).until(() -> "FailedCreate".equals(condition(
                get("/apis/apps/v1/namespaces/" + ns + "/deployments/capped").json(), "ReplicaFailure", "reason")));
        JsonNode d = get("/apis/apps/v1/namespaces/" + ns + "/deployments/capped").json();
        assertThat(condition(d, "ReplicaFailure", "status")).isEqualTo("True");
        assertThat(condition(d, "ReplicaFailure", "message")).contains("exceeded quota");
        assertThat(get("/api/v1/namespaces/" + ns + "/pods").json().path("items").size()).isEqualTo(1);
    }
}
