package io.cybernetes.controller.volume;

import io.cybernetes.apiserver.Kubectl;
import io.cybernetes.apiserver.SimulatedClusterSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Claims and volumes as Kubernetes binds them: the default class and its simulated
 * provisioner, the smallest fitting volume chosen, protection while a pod uses a claim,
 * reclaim policies, expansion only where the class allows it, and the columns kubectl prints.
 */
class VolumesKubectlTest extends SimulatedClusterSupport {

    static final String NS = "volumes";
    static final String PVCS = "/api/v1/namespaces/" + NS + "/persistentvolumeclaims";

    @TempDir
    Path dir;

    private Kubectl kubectl() {
        return new Kubectl(endpoints.adminKubeconfig(), dir);
    }

    private Response claim(String name, String className, String size) {
        String cls = className == null ? "" : ",\"storageClassName\":\"" + className + "\"";
        return post(PVCS, "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"" + name
                + "\"},\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],\"resources\":{\"requests\":{\"storage\":\"" + size
                + "\"}}" + cls + "}}");
    }

    private Response volume(String name, String size, String policy) {
        return post("/api/v1/persistentvolumes", "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolume\",\"metadata\":"
                + "{\"name\":\"" + name + "\"},\"spec\":{\"capacity\":{\"storage\":\"" + size + "\"},\"accessModes\":"
                + "[\"ReadWriteOnce\",\"ReadOnlyMany\"],\"persistentVolumeReclaimPolicy\":\"" + policy + "\","
                + "\"storageClassName\":\"\",\"hostPath\":{\"path\":\"/data/" + name + "\"}}}");
    }

    private JsonNode awaitBound(String claim) {
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(get(PVCS + "/" + claim)
                .text("status.phase")).isEqualTo("Bound"));
        return get(PVCS + "/" + claim).json();
    }

    @Test
    void aClaimOfTheDefaultClassGetsAProvisionedVolumeThatGrowsAndGoesWithIt() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        Kubectl.Run classes = kubectl().run("get", "storageclass");
        assertThat(classes.out()).containsPattern("NAME\\s+PROVISIONER\\s+RECLAIMPOLICY\\s+VOLUMEBINDINGMODE"
                + "\\s+ALLOWVOLUMEEXPANSION\\s+AGE").containsPattern("standard \\(default\\)\\s+cybernetes.io/simulated"
                + "\\s+Delete\\s+Immediate\\s+true");
        assertThat(claim("data", null, "1Gi").code()).isEqualTo(201);
        JsonNode bound = awaitBound("data");
        assertThat(bound.path("spec").path("storageClassName").asString()).isEqualTo("standard");
        String pvName = bound.path("spec").path("volumeName").asString();
        assertThat(pvName).isEqualTo("pvc-" + bound.path("metadata").path("uid").asString());
        assertThat(bound.path("metadata").path("finalizers").toString()).contains("kubernetes.io/pvc-protection");
        assertThat(bound.path("status").path("capacity").path("storage").asString()).isEqualTo("1Gi");
        JsonNode pv = get("/api/v1/persistentvolumes/" + pvName).json();
        assertThat(pv.path("spec").path("claimRef").path("name").asString()).isEqualTo("data");
        assertThat(pv.path("metadata").path("annotations").path("pv.kubernetes.io/provisioned-by").asString())
                .isEqualTo("cybernetes.io/simulated");
        assertThat(pv.path("metadata").path("finalizers").toString()).contains("kubernetes.io/pv-protection");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(kubectl().run("-n", NS, "get", "pvc")
                .out()).containsPattern("NAME\\s+STATUS\\s+VOLUME\\s+CAPACITY\\s+ACCESS MODES\\s+STORAGECLASS"
                        + "\\s+VOLUMEATTRIBUTESCLASS\\s+AGE")
                .containsPattern("data\\s+Bound\\s+" + pvName + "\\s+1Gi\\s+RWO\\s+standard\\s+<unset>"));

        // the class allows expansion: the claim grows, not shrinks
        Response grown = patch(PVCS + "/data", "application/merge-patch+json",
                "{\"spec\":{\"resources\":{\"requests\":{\"storage\":\"3Gi\"}}}}");
        assertThat(grown.code()).as(grown.body()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(get(PVCS + "/data")
                .text("status.capacity.storage")).isEqualTo("3Gi"));
        assertThat(get("/api/v1/persistentvolumes/" + pvName).text("spec.capacity.storage")).isEqualTo("3Gi");
        Response shrunk = patch(PVCS + "/data", "application/merge-patch+json",
                "{\"spec\":{\"resources\":{\"requests\":{\"storage\":\"1Gi\"}}}}");
        assertThat(shrunk.code()).isEqualTo(422);
        assertThat(shrunk.text("message")).contains("spec.resources.requests.storage: Forbidden: field can not be less"
                + " than status.capacity");

        // in use by a pod, the claim waits for the pod; then it goes, and its volume with it (Delete)
        assertThat(post("/api/v1/namespaces/" + NS + "/pods", "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":"
                + "{\"name\":\"user\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}],\"volumes\":"
                + "[{\"name\":\"d\",\"persistentVolumeClaim\":{\"claimName\":\"data\"}}]}}").code()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(get("/api/v1/namespaces/" + NS
                + "/pods/user").text("status.phase")).isEqualTo("Running"));
        assertThat(delete(PVCS + "/data").code()).isEqualTo(202); // accepted: its finalizer holds it
        await().pollDelay(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            Response still = get(PVCS + "/data");
            assertThat(still.code()).isEqualTo(200);
            assertThat(still.json().path("metadata").has("deletionTimestamp")).isTrue();
        });
        assertThat(delete("/api/v1/namespaces/" + NS + "/pods/user?gracePeriodSeconds=0").code()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(get(PVCS + "/data").code()).isEqualTo(404);
            assertThat(get("/api/v1/persistentvolumes/" + pvName).code()).isEqualTo(404);
        });
    }

    @Test
    void aClaimWithoutAClassGetsTheSmallestVolumeThatFitsAndReleasesItWhenItGoes() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        assertThat(volume("static-small", "2Gi", "Retain").code()).isEqualTo(201);
        assertThat(volume("static-large", "10Gi", "Retain").code()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(get("/api/v1/persistentvolumes/static-small")
                .text("status.phase")).isEqualTo("Available"));
        assertThat(claim("static", "", "1Gi").code()).isEqualTo(201);
        JsonNode bound = awaitBound("static");
        assertThat(bound.path("spec").path("volumeName").asString()).isEqualTo("static-small");
        assertThat(bound.path("status").path("capacity").path("storage").asString()).isEqualTo("2Gi");
        assertThat(bound.path("status").path("accessModes").toString()).isEqualTo("[\"ReadWriteOnce\",\"ReadOnlyMany\"]");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(kubectl().run("get", "pv", "static-small")
                .out()).containsPattern("static-small\\s+2Gi\\s+RWO,ROX\\s+Retain\\s+Bound\\s+" + NS + "/static\\s+"));
        // no class of its own: it may not grow
        Response grown = patch(PVCS + "/static", "application/merge-patch+json",
                "{\"spec\":{\"resources\":{\"requests\":{\"storage\":\"3Gi\"}}}}");
        assertThat(grown.code()).isEqualTo(403);
        assertThat(grown.text("message")).isEqualTo("persistentvolumeclaims \"static\" is forbidden: only dynamically"
                + " provisioned pvc can be resized and the storageclass that provisions the pvc must support resize");
        // deleted, the claim leaves its volume Released (Retain), never handed to another claim
        assertThat(delete(PVCS + "/static").code()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(get("/api/v1/persistentvolumes/static-small")
                .text("status.phase")).isEqualTo("Released"));
        assertThat(claim("elsewhere", "", "1Gi").code()).isEqualTo(201);
        assertThat(awaitBound("elsewhere").path("spec").path("volumeName").asString()).isEqualTo("static-large");
        // a class of another provisioner: the claim waits for it
        assertThat(post("/apis/storage.k8s.io/v1/storageclasses", "{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":"
                + "\"StorageClass\",\"metadata\":{\"name\":\"external\"},\"provisioner\":\"ebs.csi.aws.com\"}").code())
                .isIn(201, 409);
        assertThat(claim("waiting", "external", "1Gi").code()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(get("/api/v1/namespaces/" + NS
                + "/events?fieldSelector=involvedObject.name%3Dwaiting").body())
                .contains("Waiting for a volume to be created either by the external provisioner 'ebs.csi.aws.com'"));
        assertThat(get(PVCS + "/waiting").text("status.phase")).isEqualTo("Pending");
        // and a pod that mounts it waits too, with the scheduler's reason
        assertThat(post("/api/v1/namespaces/" + NS + "/pods", "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":"
                + "{\"name\":\"stuck\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}],\"volumes\":"
                + "[{\"name\":\"d\",\"persistentVolumeClaim\":{\"claimName\":\"waiting\"}}]}}").code()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            JsonNode scheduled = null;
            for (JsonNode c : get("/api/v1/namespaces/" + NS + "/pods/stuck").json().path("status").path("conditions")) {
                scheduled = "PodScheduled".equals(c.path("type").asString()) ? c : scheduled;
            }
            assertThat(scheduled).isNotNull();
            assertThat(scheduled.path("status").asString()).isEqualTo("False");
            assertThat(scheduled.path("message").asString()).contains("pod has unbound immediate"
                    + " PersistentVolumeClaims");
        });
    }

    @Test
    void aWaitForFirstConsumerClaimIsProvisionedOnTheNodeItsPodIsPlacedOn() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        assertThat(post("/apis/storage.k8s.io/v1/storageclasses", "{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":"
                + "\"StorageClass\",\"metadata\":{\"name\":\"local-wait\"},\"provisioner\":\"cybernetes.io/simulated\","
                + "\"volumeBindingMode\":\"WaitForFirstConsumer\"}").code()).isIn(201, 409);
        assertThat(claim("later", "local-wait", "1Gi").code()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(get("/api/v1/namespaces/" + NS
                + "/events?fieldSelector=involvedObject.name%3Dlater").body())
                .contains("waiting for first consumer to be created before binding"));
        assertThat(get(PVCS + "/later").text("status.phase")).isEqualTo("Pending");
        assertThat(post("/api/v1/namespaces/" + NS + "/pods", "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":"
                + "{\"name\":\"consumer\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}],"
                + "\"volumes\":[{\"name\":\"d\",\"persistentVolumeClaim\":{\"claimName\":\"later\"}}]}}").code())
                .isEqualTo(201);
        JsonNode bound = awaitBound("later");
        String node = get("/api/v1/namespaces/" + NS + "/pods/consumer").text("spec.nodeName");
        assertThat(bound.path("metadata").path("annotations").path("volume.kubernetes.io/selected-node").asString())
                .isEqualTo(node);
        JsonNode pv = get("/api/v1/persistentvolumes/" + bound.path("spec").path("volumeName").asString()).json();
        assertThat(pv.path("spec").path("nodeAffinity").toString()).contains("kubernetes.io/hostname", node);
    }

    @Test
    void aClaimMadeWhileNoClassWasDefaultGetsTheDefaultOnceThereIsOne() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        String standard = "/apis/storage.k8s.io/v1/storageclasses/standard";
        String merge = "application/merge-patch+json";
        assertThat(patch(standard, merge, "{\"metadata\":{\"annotations\":{\"storageclass.kubernetes.io/"
                + "is-default-class\":\"false\"}}}").code()).isEqualTo(200);
        try {
            assertThat(claim("late", null, "1Gi").code()).isEqualTo(201);
            assertThat(get(PVCS + "/late").json().path("spec").has("storageClassName")).isFalse();
        } finally {
            assertThat(patch(standard, merge, "{\"metadata\":{\"annotations\":{\"storageclass.kubernetes.io/"
                    + "is-default-class\":\"true\"}}}").code()).isEqualTo(200);
        }
        JsonNode bound = awaitBound("late");
        assertThat(bound.path("spec").path("storageClassName").asString()).isEqualTo("standard");
    }

    @Test
    void aPodOnANodeStartsOnlyOnceItsClaimIsBoundAndIsToldWhyItWaits() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        // placed by hand, past the scheduler: the node agent is what waits for the volume
        assertThat(post("/api/v1/namespaces/" + NS + "/pods", """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"mounter"},"spec":{"nodeName":"node-1",
                 "containers":[{"name":"c","image":"busybox"}],
                 "volumes":[{"name":"data","persistentVolumeClaim":{"claimName":"arrives-later"}}]}}""").code())
                .isEqualTo(201);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            JsonNode events = get("/api/v1/namespaces/" + NS + "/events?fieldSelector=involvedObject.name%3Dmounter")
                    .json();
            assertThat(events.toString()).contains("FailedMount").contains("Unable to attach or mount volumes:"
                    + " unmounted volumes=[data], unattached volumes=[], failed to process volumes=[data]: error"
                    + " processing PVC " + NS + "/arrives-later: failed to fetch PVC from API server:"
                    + " persistentvolumeclaims \\\"arrives-later\\\" not found");
        });
        assertThat(get("/api/v1/namespaces/" + NS + "/pods/mounter").text("status.phase")).isEqualTo("Pending");
        assertThat(claim("arrives-later", null, "1Gi").code()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(get("/api/v1/namespaces/" + NS
                + "/pods/mounter").text("status.phase")).isEqualTo("Running"));
    }
}
