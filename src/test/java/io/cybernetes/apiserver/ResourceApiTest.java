package io.cybernetes.apiserver;

import io.cybernetes.apiserver.internal.handlers.ResourceController;
import io.cybernetes.apiserver.internal.handlers.ResourceHandlerMapping;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.util.ServletRequestPathUtils;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** Every verb and subresource over real HTTP, as curl or a client library would use them. */
class ResourceApiTest extends ApiTestSupport {

    String ns;

    @BeforeEach
    void namespace() {
        ns = "t-" + UUID.randomUUID().toString().substring(0, 8);
        assertThat(createNamespace(ns).code()).isEqualTo(201);
    }

    static String configMap(String name, String data) {
        return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name + "\",\"labels\":{\"app\":\"a\"}},"
                + "\"data\":{\"k\":\"" + data + "\"}}";
    }

    static String deployment(String name, int replicas) {
        return """
                {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"%s","labels":{"app":"%s"}},
                 "spec":{"replicas":%d,"selector":{"matchLabels":{"app":"%s"}},
                  "template":{"metadata":{"labels":{"app":"%s"}},
                   "spec":{"containers":[{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80}],
                           "env":[{"name":"A","value":"1"}]}]}}}}""".formatted(name, name, replicas, name, name);
    }

    static String pod(String name) {
        return "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"" + name + "\"},"
                + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}";
    }

    @Test
    void resourceRequestsGoStraightToTheResourceHandlerAndOthersToTheirMappings(
            @Autowired DispatcherServlet dispatcher) throws Exception {
        assertThat(get("/api/v1/namespaces/" + ns + "/configmaps").code()).isEqualTo(200); // mappings initialised
        HandlerMapping first = dispatcher.getHandlerMappings().get(0);
        assertThat(first).isInstanceOf(ResourceHandlerMapping.class);
        MockHttpServletRequest create = new MockHttpServletRequest("POST", "/api/v1/namespaces/" + ns + "/configmaps");
        ServletRequestPathUtils.parseAndCache(create);
        HandlerMethod handler = (HandlerMethod) first.getHandler(create).getHandler();
        assertThat(handler.getBeanType()).isEqualTo(ResourceController.class);
        assertThat(handler.getMethod().getName()).isEqualTo("handle");
        assertThat(create.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE)).isEqualTo("/api/v1/**");
        for (String other : List.of("/api/v1", "/apis/apps/v1", "/apis/status.cybernetes.io/v1/objecthistories")) {
            MockHttpServletRequest r = new MockHttpServletRequest("GET", other);
            ServletRequestPathUtils.parseAndCache(r);
            assertThat(first.getHandler(r)).as(other).isNull();
        }
        MockHttpServletRequest preflight = new MockHttpServletRequest("OPTIONS", "/api/v1/namespaces");
        ServletRequestPathUtils.parseAndCache(preflight);
        assertThat(first.getHandler(preflight)).isNull();
        // and what they lead to answers as before: discovery, and a group's resource
        assertThat(get("/api/v1").text("kind")).isEqualTo("APIResourceList");
        assertThat(get("/apis/apps/v1/namespaces/" + ns + "/deployments").text("kind")).isEqualTo("DeploymentList");
    }

    @Test
    void createSetsServerOwnedMetadataAndGetReturnsTheObject() {
        Response created = post("/api/v1/namespaces/" + ns + "/configmaps", configMap("one", "v"));
        assertThat(created.code()).isEqualTo(201);
        assertThat(created.text("kind")).isEqualTo("ConfigMap");
        assertThat(created.text("apiVersion")).isEqualTo("v1");
        assertThat(created.text("metadata.uid")).hasSize(36);
        assertThat(created.text("metadata.creationTimestamp")).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
        assertThat(created.text("metadata.resourceVersion")).matches("\\d+");
        assertThat(created.text("metadata.namespace")).isEqualTo(ns);
        Response got = get("/api/v1/namespaces/" + ns + "/configmaps/one");
        assertThat(got.code()).isEqualTo(200);
        assertThat(got.json()).isEqualTo(created.json());
        Response again = post("/api/v1/namespaces/" + ns + "/configmaps", configMap("one", "v"));
        assertThat(again.code()).isEqualTo(409);
        assertThat(again.text("reason")).isEqualTo("AlreadyExists");
        assertThat(again.text("message")).isEqualTo("configmaps \"one\" already exists");
    }

    @Test
    void emptyMapsAreLeftOutAsGoLeavesOutItsOmitemptyMaps() {
        String base = "/api/v1/namespaces/" + ns + "/configmaps";
        Response created = post(base, "{\"metadata\":{\"name\":\"maps\",\"labels\":{},\"annotations\":null},"
                + "\"data\":{}}");
        assertThat(created.code()).as(created.body()).isEqualTo(201);
        assertThat(created.json().path("metadata").has("labels")).isFalse();
        assertThat(created.json().path("metadata").has("annotations")).isFalse();
        assertThat(created.json().has("data")).isFalse();
        // what kubectl diff sends for an object it did not apply: no change at all
        Response patched = patch(base + "/maps?dryRun=All", "application/strategic-merge-patch+json",
                "{\"metadata\":{\"annotations\":{}}}");
        assertThat(patched.code()).isEqualTo(200);
        assertThat(patched.json().path("metadata").has("annotations")).isFalse();
        assertThat(patched.text("metadata.resourceVersion")).isEqualTo(created.text("metadata.resourceVersion"));
        // deeper down too: a pod template's empty nodeSelector
        Response d = post("/apis/apps/v1/namespaces/" + ns + "/deployments", "{\"metadata\":{\"name\":\"d\"},"
                + "\"spec\":{\"selector\":{\"matchLabels\":{\"a\":\"b\"}},\"template\":{\"metadata\":{\"labels\":"
                + "{\"a\":\"b\"},\"annotations\":{}},\"spec\":{\"nodeSelector\":{},\"containers\":[{\"name\":\"c\","
                + "\"image\":\"nginx\"}]}}}}");
        assertThat(d.code()).as(d.body()).isEqualTo(201);
        assertThat(d.json().at("/spec/template/spec").has("nodeSelector")).isFalse();
        assertThat(d.json().at("/spec/template/metadata").has("annotations")).isFalse();
        assertThat(d.json().at("/spec/template/metadata/labels/a").asString()).isEqualTo("b");
    }

    @Test
    void generateNameMakesAUniqueName() {
        Response r = post("/api/v1/namespaces/" + ns + "/configmaps",
                "{\"metadata\":{\"generateName\":\"gen-\"},\"data\":{}}");
        assertThat(r.code()).isEqualTo(201);
        assertThat(r.text("metadata.name")).matches("gen-[a-z0-9]{5}");
    }

    @Test
    void updateWithAStaleResourceVersionIsAConflictAndWithoutOneIsUnconditional() {
        Response created = post("/api/v1/namespaces/" + ns + "/configmaps", configMap("cm", "1"));
        String rv = created.text("metadata.resourceVersion");
        String path = "/api/v1/namespaces/" + ns + "/configmaps/cm";
        Response updated = put(path, configMap("cm", "2").replace("\"name\":\"cm\"",
                "\"name\":\"cm\",\"resourceVersion\":\"" + rv + "\""));
        assertThat(updated.code()).isEqualTo(200);
        assertThat(updated.text("data.k")).isEqualTo("2");
        Response stale = put(path, configMap("cm", "3").replace("\"name\":\"cm\"",
                "\"name\":\"cm\",\"resourceVersion\":\"" + rv + "\""));
        assertThat(stale.code()).isEqualTo(409);
        assertThat(stale.text("reason")).isEqualTo("Conflict");
        assertThat(stale.text("message")).contains("the object has been modified");
        assertThat(get(path).text("data.k")).isEqualTo("2");
        Response blind = put(path, configMap("cm", "4"));
        assertThat(blind.code()).isEqualTo(200);
        assertThat(blind.text("data.k")).isEqualTo("4");
        assertThat(blind.text("metadata.uid")).isEqualTo(created.text("metadata.uid"));
        assertThat(blind.text("metadata.creationTimestamp")).isEqualTo(created.text("metadata.creationTimestamp"));
    }

    @Test
    void generationCountsSpecChangesOnlyAndStatusGoesThroughItsSubresource() {
        String base = "/apis/apps/v1/namespaces/" + ns + "/deployments";
        assertThat(post(base, deployment("d", 1)).text("metadata.generation")).isEqualTo("1");
        Response labeled = patch(base + "/d", "application/merge-patch+json", "{\"metadata\":{\"labels\":{\"x\":\"y\"}}}");
        assertThat(labeled.text("metadata.generation")).isEqualTo("1");
        Response scaled = patch(base + "/d", "application/merge-patch+json", "{\"spec\":{\"replicas\":3}}");
        assertThat(scaled.text("metadata.generation")).isEqualTo("2");
        // status written on the main resource is ignored; through /status it sticks, and spec there is ignored
        Response ignored = patch(base + "/d", "application/merge-patch+json", "{\"status\":{\"replicas\":7}}");
        // (the deployment controller may have written a status of its own meanwhile: only 7 must not be there)
        assertThat(ignored.json().path("status").path("replicas").asInt(0)).isNotEqualTo(7);
        Response status = patch(base + "/d/status", "application/merge-patch+json",
                "{\"spec\":{\"replicas\":9},\"status\":{\"replicas\":7,\"observedGeneration\":2}}");
        assertThat(status.code()).isEqualTo(200);
        assertThat(status.text("status.replicas")).isEqualTo("7");
        assertThat(status.text("spec.replicas")).isEqualTo("3");
        assertThat(status.text("metadata.generation")).isEqualTo("2");
        assertThat(get(base + "/d/status").text("status.observedGeneration")).isEqualTo("2");
    }

    @Test
    void theThreePatchFormats() {
        String base = "/apis/apps/v1/namespaces/" + ns + "/deployments";
        post(base, deployment("p", 1));
        Response json = patch(base + "/p", "application/json-patch+json",
                "[{\"op\":\"replace\",\"path\":\"/spec/replicas\",\"value\":4},"
                        + "{\"op\":\"add\",\"path\":\"/metadata/labels/tier\",\"value\":\"front\"}]");
        assertThat(json.code()).isEqualTo(200);
        assertThat(json.text("spec.replicas")).isEqualTo("4");
        assertThat(json.text("metadata.labels.tier")).isEqualTo("front");
        Response failedTest = patch(base + "/p", "application/json-patch+json",
                "[{\"op\":\"test\",\"path\":\"/spec/replicas\",\"value\":99}]");
        assertThat(failedTest.code()).isEqualTo(422);
        // strategic merge: containers merge by name, env by name, $patch delete removes one
        Response smp = patch(base + "/p", "application/strategic-merge-patch+json", """
                {"spec":{"template":{"spec":{"containers":[
                  {"name":"web","image":"nginx:1.28","env":[{"name":"B","value":"2"}]},
                  {"name":"sidecar","image":"envoy:1"}]}}}}""");
        assertThat(smp.code()).isEqualTo(200);
        JsonNode containers = smp.json().at("/spec/template/spec/containers");
        assertThat(containers).hasSize(2);
        assertThat(containers.get(0).path("image").asString()).isEqualTo("nginx:1.28");
        assertThat(containers.get(0).path("ports")).hasSize(1);
        assertThat(containers.get(0).path("env")).hasSize(2);
        Response del = patch(base + "/p", "application/strategic-merge-patch+json", """
                {"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"web"}],
                  "containers":[{"name":"sidecar","$patch":"delete"}]}}}}""");
        assertThat(del.json().at("/spec/template/spec/containers")).hasSize(1);
        Response merge = patch(base + "/p", "application/merge-patch+json", "{\"metadata\":{\"labels\":{\"tier\":null}}}");
        assertThat(merge.json().at("/metadata/labels").has("tier")).isFalse();
        Response unsupported = patch(base + "/p", "text/plain", "x");
        assertThat(unsupported.code()).isEqualTo(415);
    }

    @Test
    void scaleSubresourceReadsAndWritesReplicas() {
        String base = "/apis/apps/v1/namespaces/" + ns + "/deployments";
        post(base, deployment("s", 2));
        Response scale = get(base + "/s/scale");
        assertThat(scale.text("kind")).isEqualTo("Scale");
        assertThat(scale.text("apiVersion")).isEqualTo("autoscaling/v1");
        assertThat(scale.text("spec.replicas")).isEqualTo("2");
        assertThat(scale.text("status.selector")).isEqualTo("app=s");
        Response patched = patch(base + "/s/scale", "application/merge-patch+json", "{\"spec\":{\"replicas\":5}}");
        assertThat(patched.text("spec.replicas")).isEqualTo("5");
        Response putScale = call("PUT", base + "/s/scale", null,
                "{\"kind\":\"Scale\",\"apiVersion\":\"autoscaling/v1\",\"metadata\":{\"name\":\"s\"},\"spec\":{\"replicas\":6}}");
        assertThat(putScale.code()).isEqualTo(200);
        assertThat(get(base + "/s").text("spec.replicas")).isEqualTo("6");
        Response negative = patch(base + "/s/scale", "application/merge-patch+json", "{\"spec\":{\"replicas\":-1}}");
        assertThat(negative.code()).isEqualTo(422);
        assertThat(post("/apis/apps/v1/namespaces/" + ns + "/replicasets", """
                {"metadata":{"name":"rs"},"spec":{"selector":{"matchLabels":{"a":"b"}},
                 "template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}""")
                .code()).isEqualTo(201);
        assertThat(get("/apis/apps/v1/namespaces/" + ns + "/replicasets/rs/scale").text("spec.replicas")).isEqualTo("1");
    }

    @Test
    void bindingAssignsANodeOnceAndGracefulDeletionFollows() {
        String base = "/api/v1/namespaces/" + ns + "/pods";
        Response created = post(base, pod("b"));
        assertThat(created.text("status.phase")).isEqualTo("Pending");
        Response bind = post(base + "/b/binding",
                "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"b\"},\"target\":{\"kind\":\"Node\",\"name\":\"n1\"}}");
        assertThat(bind.code()).isEqualTo(201);
        assertThat(bind.text("status")).isEqualTo("Success");
        assertThat(get(base + "/b").text("spec.nodeName")).isEqualTo("n1");
        Response twice = post(base + "/b/binding", "{\"target\":{\"name\":\"n2\"}}");
        assertThat(twice.code()).isEqualTo(409);
        // a bound pod is deleted gracefully: it gets a deletionTimestamp and stays until its node lets go
        Response graceful = delete(base + "/b");
        assertThat(graceful.code()).isEqualTo(202);
        assertThat(graceful.text("metadata.deletionTimestamp")).isNotNull();
        assertThat(graceful.text("metadata.deletionGracePeriodSeconds")).isEqualTo("30");
        Response now = call("DELETE", base + "/b", "application/json",
                "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"gracePeriodSeconds\":0}");
        assertThat(now.code()).isEqualTo(200);
        assertThat(get(base + "/b").code()).isEqualTo(404);
    }

    @Test
    void gracePeriodsAtTheEdgesOfInt64NeitherOverflowNorDeleteAtOnce() {
        String base = "/api/v1/namespaces/" + ns + "/pods";
        Response created = post(base, "{\"metadata\":{\"name\":\"forever\"},\"spec\":{\"nodeName\":\"n1\","
                + "\"terminationGracePeriodSeconds\":9223372036854775807,"
                + "\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}");
        assertThat(created.code()).as(created.body()).isEqualTo(201);
        Response graceful = delete(base + "/forever");
        assertThat(graceful.code()).as(graceful.body()).isEqualTo(202);
        assertThat(graceful.text("metadata.deletionTimestamp")).isEqualTo("9999-12-31T23:59:59Z");
        assertThat(graceful.text("metadata.deletionGracePeriodSeconds")).isEqualTo("9223372036854775807");
        assertThat(call("DELETE", base + "/forever", "application/json", "{\"gracePeriodSeconds\":0}").code())
                .isEqualTo(200);

        assertThat(post(base, "{\"metadata\":{\"name\":\"negative\"},\"spec\":{\"nodeName\":\"n1\","
                + "\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}").code()).isEqualTo(201);
        Response tooBig = call("DELETE", base + "/negative", "application/json",
                "{\"gracePeriodSeconds\":99999999999999999999}");
        assertThat(tooBig.code()).isEqualTo(400);
        assertThat(tooBig.text("message")).isEqualTo("json: cannot unmarshal number 99999999999999999999 into Go"
                + " struct field DeleteOptions.gracePeriodSeconds of type int64");
        Response negative = delete(base + "/negative?gracePeriodSeconds=-5");
        assertThat(negative.code()).as("a negative grace period is the shortest graceful one").isEqualTo(202);
        assertThat(negative.text("metadata.deletionGracePeriodSeconds")).isEqualTo("1");
        assertThat(get("/api/v1/namespaces/" + ns + "/pods?limit=9223372036854775807").code()).isEqualTo(200);
    }

    @Test
    void aPodReplacedByItsOwnManifestIsNoChange() {
        String base = "/api/v1/namespaces/" + ns + "/pods";
        String manifest = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"same\"},\"spec\":{"
                + "\"serviceAccountName\":\"default\",\"automountServiceAccountToken\":false,"
                + "\"containers\":[{\"name\":\"c\",\"image\":\"nginx:1.27\"}]}}";
        Response created = post(base, manifest);
        assertThat(created.code()).as(created.body()).isEqualTo(201);
        assertThat(created.json().at("/spec/tolerations").size()).as("DefaultTolerationSeconds").isEqualTo(2);
        assertThat(created.json().at("/spec/priority").asInt(-1)).isZero();
        // what kubectl replace -f sends: the manifest again, without what defaulting and admission added
        // (as in Kubernetes, one that left the ServiceAccount or its token volume to admission cannot be replaced)
        Response replaced = put(base + "/same", manifest);
        assertThat(replaced.code()).as(replaced.body()).isEqualTo(200);
        assertThat(replaced.json().at("/spec/priority").asInt(-1)).isZero();
        assertThat(replaced.json().at("/spec/tolerations").size()).isEqualTo(2);
        Response changed = put(base + "/same", manifest.replace("\"name\":\"c\"", "\"name\":\"d\""));
        assertThat(changed.code()).as("a real change to the spec is still refused").isEqualTo(422);
    }

    @Test
    void finalizersKeepADeletedObjectUntilTheyAreRemoved() {
        String base = "/api/v1/namespaces/" + ns + "/configmaps";
        post(base, "{\"metadata\":{\"name\":\"f\",\"finalizers\":[\"example.com/hold\"]}}");
        Response deleting = delete(base + "/f");
        assertThat(deleting.code()).isEqualTo(202);
        assertThat(deleting.text("metadata.deletionTimestamp")).isNotNull();
        assertThat(get(base + "/f").code()).isEqualTo(200);
        Response addMore = patch(base + "/f", "application/merge-patch+json",
                "{\"metadata\":{\"finalizers\":[\"example.com/hold\",\"example.com/more\"]}}");
        assertThat(addMore.code()).isEqualTo(422);
        Response released = patch(base + "/f", "application/merge-patch+json", "{\"metadata\":{\"finalizers\":null}}");
        assertThat(released.code()).isEqualTo(200);
        assertThat(get(base + "/f").code()).isEqualTo(404);
    }

    @Test
    void deletePreconditionsAndOrphanPropagation() {
        String base = "/api/v1/namespaces/" + ns + "/configmaps";
        Response created = post(base, configMap("d", "v"));
        Response wrongUid = call("DELETE", base + "/d", "application/json",
                "{\"preconditions\":{\"uid\":\"nope\"}}");
        assertThat(wrongUid.code()).isEqualTo(409);
        Response wrongRv = call("DELETE", base + "/d", "application/json",
                "{\"preconditions\":{\"resourceVersion\":\"1\"}}");
        assertThat(wrongRv.code()).isEqualTo(409);
        Response orphan = call("DELETE", base + "/d", "application/json",
                "{\"propagationPolicy\":\"Orphan\",\"preconditions\":{\"uid\":\"" + created.text("metadata.uid") + "\"}}");
        assertThat(orphan.code()).isEqualTo(202);
        assertThat(orphan.json().at("/metadata/finalizers/0").asString()).isEqualTo("orphan");
    }

    @Test
    void dryRunValidatesEverythingAndStoresNothing() {
        String base = "/api/v1/namespaces/" + ns + "/configmaps";
        Response dry = post(base + "?dryRun=All", configMap("dry", "v"));
        assertThat(dry.code()).isEqualTo(201);
        assertThat(dry.text("metadata.uid")).isNotNull();
        assertThat(get(base + "/dry").code()).isEqualTo(404);
        post(base, configMap("dry", "v"));
        assertThat(patch(base + "/dry?dryRun=All", "application/merge-patch+json", "{\"data\":{\"k\":\"x\"}}")
                .text("data.k")).isEqualTo("x");
        assertThat(get(base + "/dry").text("data.k")).isEqualTo("v");
        assertThat(call("DELETE", base + "/dry?dryRun=All", null, null).code()).isEqualTo(200);
        assertThat(get(base + "/dry").code()).isEqualTo(200);
        assertThat(post(base + "?dryRun=Some", configMap("x", "v")).code()).isEqualTo(400);
    }

    @Test
    void fieldValidationStrictWarnAndIgnore() {
        String base = "/api/v1/namespaces/" + ns + "/configmaps";
        String body = "{\"metadata\":{\"name\":\"fv\",\"bogus\":1},\"data\":{},\"spec\":{\"x\":1}}";
        Response strict = post(base + "?fieldValidation=Strict", body);
        assertThat(strict.code()).isEqualTo(400);
        assertThat(strict.text("message")).contains("strict decoding error", "unknown field \"metadata.bogus\"",
                "unknown field \"spec\"");
        Response warn = post(base + "?fieldValidation=Warn", body);
        assertThat(warn.code()).isEqualTo(201);
        assertThat(warn.headers().allValues("Warning")).anyMatch(w -> w.startsWith("299 - ") && w.contains("metadata.bogus"));
        assertThat(warn.json().has("spec")).isFalse();
        Response ignore = post(base + "?fieldValidation=Ignore", body.replace("\"fv\"", "\"fv2\""));
        assertThat(ignore.code()).isEqualTo(201);
        assertThat(ignore.headers().allValues("Warning")).isEmpty();
    }

    @Test
    void duplicateFieldsAreReportedAsKubernetesDoesAndStrictRefusesThem() {
        String base = "/api/v1/namespaces/" + ns + "/configmaps";
        String body = "{\"metadata\":{\"name\":\"dup\",\"labels\":{\"a\":\"1\"},\"labels\":{\"a\":\"2\"}},"
                + "\"data\":{\"k\":\"v\",\"k\":\"w\"}}";
        Response strict = post(base + "?fieldValidation=Strict", body);
        assertThat(strict.code()).isEqualTo(400);
        assertThat(strict.text("message")).isEqualTo("ConfigMap in version \"v1\" cannot be handled as a ConfigMap:"
                + " strict decoding error: duplicate field \"metadata.labels\", duplicate field \"data.k\"");
        assertThat(get(base + "/dup").code()).isEqualTo(404);
        Response warn = post(base, body);
        assertThat(warn.code()).isEqualTo(201);
        assertThat(warn.headers().allValues("Warning")).contains("299 - \"duplicate field \\\"metadata.labels\\\"\"");
        assertThat(warn.text("data.k")).as("the last value wins, as in Go").isEqualTo("w");
    }

    @Test
    void anUnknownFieldWithControlCharactersIsQuotedAsGoQuotesItAndTheWriteSucceeds() {
        String base = "/api/v1/namespaces/" + ns + "/configmaps";
        Response r = post(base, "{\"metadata\":{\"name\":\"crlf\"},\"bad\\r\\nX-Injected: 1\":1,\"tab\\u0009\\u00a0\":2}");
        assertThat(r.code()).as(r.body()).isEqualTo(201);
        assertThat(r.headers().allValues("Warning")).containsExactly(
                "299 - \"unknown field \\\"bad\\\\r\\\\nX-Injected: 1\\\"\"",
                "299 - \"unknown field \\\"tab\\\\t\\\\u00a0\\\"\"");
        assertThat(r.headers().firstValue("X-Injected")).isEmpty();
        assertThat(get(base + "/crlf").code()).isEqualTo(200);
    }

    @Test
    void errorsAreStatusesWordForWordAsKubeApiserverWritesThem() {
        String base = "/api/v1/namespaces/" + ns + "/configmaps";
        post(base, "{\"metadata\":{\"name\":\"twice\"}}");
        Response again = post(base, "{\"metadata\":{\"name\":\"twice\"}}");
        assertThat(again.code()).isEqualTo(409);
        assertThat(again.body()).isEqualTo("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
                + "\"Failure\",\"message\":\"configmaps \\\"twice\\\" already exists\",\"reason\":\"AlreadyExists\","
                + "\"details\":{\"name\":\"twice\",\"kind\":\"configmaps\"},\"code\":409}\n");
        Response missingPod = get("/api/v1/namespaces/" + ns + "/pods/p/ephemeralcontainers");
        assertThat(missingPod.text("message")).isEqualTo("pods \"p\" not found");
        Response deployment = get("/apis/apps/v1/namespaces/" + ns + "/deployments/none");
        assertThat(deployment.body()).contains("\"details\":{\"name\":\"none\",\"group\":\"apps\","
                + "\"kind\":\"deployments\"}");
        // a subresource this server does not serve: empty details, as kube-apiserver's
        Response unserved = get("/api/v1/namespaces/" + ns + "/pods/p/resize");
        assertThat(unserved.code()).isEqualTo(404);
        assertThat(unserved.body()).isEqualTo("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
                + "\"status\":\"Failure\",\"message\":\"the server could not find the requested resource\","
                + "\"reason\":\"NotFound\",\"details\":{},\"code\":404}\n");
    }

    @Test
    void anEventWithAnEventTimeIsTakenAndAResourceVersionNotReachedYetSaysSo() {
        Response event = post("/api/v1/namespaces/" + ns + "/events", "{\"metadata\":{\"name\":\"e1\"},"
                + "\"involvedObject\":{\"kind\":\"Pod\",\"name\":\"p\",\"namespace\":\"" + ns + "\"},"
                + "\"reason\":\"Tested\",\"eventTime\":\"2026-12-01T10:00:00.123456Z\",\"reportingComponent\":\"t\","
                + "\"reportingInstance\":\"t-1\",\"action\":\"Test\",\"type\":\"Normal\"}");
        assertThat(event.code()).as(event.body()).isEqualTo(201);
        assertThat(event.text("eventTime")).isEqualTo("2026-12-01T10:00:00.123456Z");
        Response ahead = get("/api/v1/namespaces/" + ns + "/configmaps/none?resourceVersion=9223372036854775807");
        assertThat(ahead.code()).isIn(504, 404);
        Response list = get("/api/v1/namespaces/" + ns + "/configmaps?resourceVersion=9223372036854775807"
                + "&resourceVersionMatch=NotOlderThan");
        assertThat(list.code()).isEqualTo(504);
        assertThat(list.text("message")).startsWith("Timeout: Too large resource version: 9223372036854775807, current:");
        assertThat(list.json().at("/details/causes/0/reason").asString()).isEqualTo("ResourceVersionTooLarge");
        assertThat(list.json().at("/details/retryAfterSeconds").asInt()).isEqualTo(1);
    }

    @Test
    void jsonIsIndentedForPeopleAsKubeApiserverIndentsIt() {
        String base = "/api/v1/namespaces/" + ns + "/configmaps";
        post(base, "{\"metadata\":{\"name\":\"pretty\"},\"data\":{\"k\":\"v\"}}");
        Response asked = get(base + "/pretty?pretty=true");
        assertThat(asked.body()).startsWith("{\n  \"kind\": \"ConfigMap\",\n  \"apiVersion\": \"v1\",\n")
                .contains("\n  \"data\": {\n    \"k\": \"v\"\n  }").endsWith("}");
        Response curl = callWithHeaders(token(), "GET", base + "/pretty", null, null, "application/json",
                "User-Agent", "curl/8.5.0");
        assertThat(curl.body()).isEqualTo(asked.body());
        assertThat(callWithHeaders(token(), "GET", base + "/pretty?pretty=false", null, null, "application/json",
                "User-Agent", "curl/8.5.0").body()).startsWith("{\"kind\":\"ConfigMap\"").endsWith("}\n");
        Response review = callWithHeaders(token(), "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                "application/json", "{\"spec\":{\"resourceAttributes\":{\"verb\":\"get\",\"resource\":\"pods\"}}}",
                "application/json", "User-Agent", "curl/8.5.0");
        assertThat(review.body()).contains("\"allowed\": true");
        Response refused = callWithHeaders(null, "GET", base, null, null, "application/json", "User-Agent",
                "Wget/1.21");
        assertThat(refused.body()).startsWith("{\n  \"kind\": \"Status\"");
    }

    @Test
    void objectsOfKindsWithSpecAndStatusAlwaysCarryThem() {
        Response d = post("/apis/apps/v1/namespaces/" + ns + "/deployments", "{\"metadata\":{\"name\":\"bare\"},"
                + "\"spec\":{\"selector\":{\"matchLabels\":{\"a\":\"b\"}},\"template\":{\"metadata\":{\"labels\":"
                + "{\"a\":\"b\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}}}");
        assertThat(d.code()).as(d.body()).isEqualTo(201);
        assertThat(d.json().path("status").isObject()).as("status: {} as Go writes an empty struct").isTrue();
        Response lease = post("/apis/coordination.k8s.io/v1/namespaces/" + ns + "/leases", "{\"metadata\":{\"name\":"
                + "\"bare\"}}");
        assertThat(lease.json().path("spec").isObject()).isTrue();
        Response cm = post("/api/v1/namespaces/" + ns + "/configmaps", "{\"metadata\":{\"name\":\"no-spec\"}}");
        assertThat(cm.json().has("spec") || cm.json().has("status")).as("a kind without them gets none").isFalse();
    }

    @Test
    void aPageCutByLimitSaysHowManyRemainWhenNothingFiltersIt() {
        String base = "/api/v1/namespaces/" + ns + "/configmaps";
        for (int i = 0; i < 7; i++) {
            post(base, "{\"metadata\":{\"name\":\"r" + i + "\",\"labels\":{\"i\":\"" + i + "\"}}}");
        }
        Response page = get(base + "?limit=2");
        int all = get(base).json().path("items").size();
        assertThat(page.json().at("/metadata/remainingItemCount").asInt()).isEqualTo(all - 2);
        Response next = get(base + "?limit=2&continue=" + page.text("metadata.continue"));
        assertThat(next.json().at("/metadata/remainingItemCount").asInt()).isEqualTo(all - 4);
        // the later pages read the first one's snapshot: what is created meanwhile counts in none of them
        post(base, "{\"metadata\":{\"name\":\"r-later\"}}");
        int seen = 4;
        String cont = next.text("metadata.continue");
        while (!cont.isEmpty()) {
            Response more = get(base + "?limit=2&continue=" + cont);
            seen += more.json().path("items").size();
            cont = more.json().at("/metadata/continue").asString("");
            if (!cont.isEmpty()) {
                assertThat(more.json().at("/metadata/remainingItemCount").asInt()).isEqualTo(all - seen);
            } else {
                assertThat(more.json().at("/metadata").has("remainingItemCount")).as("the last page").isFalse();
            }
        }
        assertThat(seen).isEqualTo(all);
        Response table = call("GET", base + "?limit=2", null, null, "application/json;as=Table;v=v1;g=meta.k8s.io", true);
        assertThat(table.json().at("/metadata/remainingItemCount").asInt()).as("r-later now in").isEqualTo(all + 1 - 2);
        Response filtered = get(base + "?limit=1&labelSelector=i");
        assertThat(filtered.text("metadata.continue")).isNotEmpty();
        assertThat(filtered.json().at("/metadata").has("remainingItemCount")).as("not with a selector").isFalse();
    }

    @Test
    void listsPageFromOneSnapshotAndFilterBySelectors() {
        String base = "/api/v1/namespaces/" + ns + "/configmaps";
        for (int i = 0; i < 7; i++) {
            post(base, "{\"metadata\":{\"name\":\"c" + i + "\",\"labels\":{\"n\":\"" + (i % 2 == 0 ? "even" : "odd")
                    + "\"}}}");
        }
        Response first = get(base + "?limit=3");
        assertThat(first.json().get("items")).hasSize(3);
        String token = first.text("metadata.continue");
        assertThat(token).isNotEmpty();
        String rv = first.text("metadata.resourceVersion");
        delete(base + "/c5");
        List<String> names = new ArrayList<>();
        first.json().get("items").forEach(i -> names.add(i.at("/metadata/name").asString()));
        while (token != null && !token.isEmpty()) {
            Response page = get(base + "?limit=3&continue=" + token);
            assertThat(page.text("metadata.resourceVersion")).isEqualTo(rv);
            page.json().get("items").forEach(i -> names.add(i.at("/metadata/name").asString()));
            token = page.text("metadata.continue");
        }
        assertThat(names).containsExactly("c0", "c1", "c2", "c3", "c4", "c5", "c6");
        assertThat(get(base + "?labelSelector=n%3Deven").json().get("items")).hasSize(4);
        assertThat(get(base + "?labelSelector=n%20notin%20(even)").json().get("items")).hasSize(2);
        assertThat(get(base + "?labelSelector=!n").json().get("items")).isEmpty();
        assertThat(get(base + "?labelSelector=n").json().get("items")).hasSize(6);
        assertThat(get(base + "?fieldSelector=metadata.name%3Dc1").json().get("items")).hasSize(1);
        assertThat(get(base + "?fieldSelector=metadata.name!%3Dc1").json().get("items")).hasSize(5);
        assertThat(get(base + "?fieldSelector=spec.bogus%3D1").code()).isEqualTo(400);
        assertThat(get(base + "?continue=garbage").code()).isEqualTo(400);
        // resourceVersion semantics
        assertThat(get(base + "?resourceVersion=0").code()).isEqualTo(200);
        assertThat(get(base + "?resourceVersion=" + rv + "&resourceVersionMatch=Exact").json().get("items")).hasSize(7);
        assertThat(get(base + "?resourceVersion=" + rv + "&resourceVersionMatch=NotOlderThan").json().get("items"))
                .hasSize(6);
        assertThat(get(base + "?resourceVersionMatch=Exact").code()).isEqualTo(400);
    }

    @Test
    void allNamespacesAndClusterScopedLists() {
        post("/api/v1/namespaces/" + ns + "/configmaps", configMap("everywhere", "v"));
        Response all = get("/api/v1/configmaps");
        assertThat(all.text("kind")).isEqualTo("ConfigMapList");
        assertThat(all.text("metadata.resourceVersion")).matches("\\d+");
        List<String> names = new ArrayList<>();
        all.json().get("items").forEach(i -> names.add(i.at("/metadata/namespace").asString() + "/"
                + i.at("/metadata/name").asString()));
        assertThat(names).contains(ns + "/everywhere");
        Response namespaces = get("/api/v1/namespaces");
        List<String> nsNames = new ArrayList<>();
        namespaces.json().get("items").forEach(i -> nsNames.add(i.at("/metadata/name").asString()));
        assertThat(nsNames).contains("default", "kube-system", "kube-public", ns);
        Response node = post("/api/v1/nodes", "{\"metadata\":{\"name\":\"node-" + ns + "\"}}");
        assertThat(node.code()).isEqualTo(201);
        assertThat(node.json().at("/metadata").has("namespace")).isFalse();
        assertThat(patch("/api/v1/nodes/node-" + ns + "/status", "application/merge-patch+json",
                "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}").code()).isEqualTo(200);
    }

    @Test
    void deleteCollectionDeletesWhatTheSelectorsMatch() {
        String base = "/api/v1/namespaces/" + ns + "/configmaps";
        for (int i = 0; i < 4; i++) {
            post(base, "{\"metadata\":{\"name\":\"dc" + i + "\",\"labels\":{\"gone\":\"" + (i < 3) + "\"}}}");
        }
        Response r = delete(base + "?labelSelector=gone%3Dtrue");
        assertThat(r.code()).isEqualTo(200);
        assertThat(r.json().get("items")).hasSize(3);
        assertThat(get(base).json().get("items")).hasSize(1);
    }

    @Test
    void namespacesMustExistAndTheSystemOnesCannotBeDeleted() {
        Response missing = post("/api/v1/namespaces/no-such-ns/configmaps", configMap("x", "v"));
        assertThat(missing.code()).isEqualTo(404);
        assertThat(missing.text("message")).isEqualTo("namespaces \"no-such-ns\" not found");
        assertThat(delete("/api/v1/namespaces/default").code()).isEqualTo(403);
        // a finalizer holds one object, and with it the namespace, in Terminating
        assertThat(post("/api/v1/namespaces/" + ns + "/configmaps", "{\"metadata\":{\"name\":\"held\","
                + "\"finalizers\":[\"example.com/hold\"]}}").code()).isEqualTo(201);
        Response terminating = delete("/api/v1/namespaces/" + ns);
        assertThat(terminating.code()).isEqualTo(202);
        assertThat(terminating.text("status.phase")).isEqualTo("Terminating");
        Response refused = post("/api/v1/namespaces/" + ns + "/configmaps", configMap("x", "v"));
        assertThat(refused.code()).isEqualTo(403);
        // the namespace controller empties it and finalizes it through /finalize once the held object goes
        eventually(() -> assertThat(get("/api/v1/namespaces/" + ns + "/configmaps/held").text(
                "metadata.deletionTimestamp")).isNotNull());
        assertThat(get("/api/v1/namespaces/" + ns).text("status.phase")).isEqualTo("Terminating");
        assertThat(patch("/api/v1/namespaces/" + ns + "/configmaps/held", "application/merge-patch+json",
                "{\"metadata\":{\"finalizers\":null}}").code()).isEqualTo(200);
        eventually(() -> assertThat(get("/api/v1/namespaces/" + ns).code()).isEqualTo(404));
    }

    @Test
    void roleBindingsNeedAValidRoleRefThatNeverChanges() {
        String base = "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/rolebindings";
        Response bad = post(base, "{\"metadata\":{\"name\":\"b\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\","
                + "\"kind\":\"Pod\",\"name\":\"x\"},\"subjects\":[{\"kind\":\"Robot\",\"name\":\"r\"}]}");
        assertThat(bad.code()).isEqualTo(422);
        assertThat(bad.text("message")).contains("roleRef.kind", "subjects[0].kind");
        String good = "{\"metadata\":{\"name\":\"system:b\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\","
                + "\"kind\":\"Role\",\"name\":\"r\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"alice\"}]}";
        assertThat(post(base, good).code()).isEqualTo(201);
        Response changed = patch(base + "/system:b", "application/merge-patch+json", "{\"roleRef\":{\"name\":\"other\"}}");
        assertThat(changed.code()).isEqualTo(422);
        assertThat(changed.text("message")).contains("cannot change roleRef");
        Response rule = post("/apis/rbac.authorization.k8s.io/v1/clusterroles",
                "{\"metadata\":{\"name\":\"no-verbs-" + ns + "\"},\"rules\":[{\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}]}");
        assertThat(rule.code()).isEqualTo(422);
        assertThat(rule.text("message")).contains("rules[0].verbs");
    }

    @Test
    void yamlInAndOut() {
        Response created = call("POST", "/api/v1/namespaces/" + ns + "/configmaps", "application/yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\ndata:\n  k: v\n", "application/yaml", true);
        assertThat(created.code()).isEqualTo(201);
        assertThat(created.headers().firstValue("Content-Type")).get().asString().startsWith("application/yaml");
        assertThat(created.body()).contains("kind: \"ConfigMap\"").contains("name: \"y\"");
    }

    @Test
    void tablesHaveTheColumnsKubectlPrints() {
        post("/apis/apps/v1/namespaces/" + ns + "/deployments", deployment("tbl", 3));
        post("/api/v1/namespaces/" + ns + "/pods", pod("tp"));
        String accept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
        Response deploys = call("GET", "/apis/apps/v1/namespaces/" + ns + "/deployments", null, null, accept, true);
        assertThat(deploys.text("kind")).isEqualTo("Table");
        List<String> columns = new ArrayList<>();
        deploys.json().get("columnDefinitions").forEach(c -> columns.add(c.get("name").asString()));
        assertThat(columns).startsWith("Name", "Ready", "Up-to-date", "Available", "Age");
        JsonNode row = deploys.json().at("/rows/0");
        assertThat(row.at("/cells/0").asString()).isEqualTo("tbl");
        assertThat(row.at("/cells/1").asString()).isEqualTo("0/3");
        assertThat(row.at("/object/kind").asString()).isEqualTo("PartialObjectMetadata");
        Response pods = call("GET", "/api/v1/namespaces/" + ns + "/pods?includeObject=Object", null, null, accept, true);
        List<String> podColumns = new ArrayList<>();
        pods.json().get("columnDefinitions").forEach(c -> podColumns.add(c.get("name").asString()));
        assertThat(podColumns).containsExactly("Name", "Ready", "Status", "Restarts", "Age", "IP", "Node",
                "Nominated Node", "Readiness Gates");
        assertThat(pods.json().at("/rows/0/cells/2").asString()).isEqualTo("Pending");
        assertThat(pods.json().at("/rows/0/object/kind").asString()).isEqualTo("Pod");
        Response one = call("GET", "/api/v1/namespaces/" + ns + "/pods/tp", null, null, accept, true);
        assertThat(one.json().get("rows")).hasSize(1);
    }
}
