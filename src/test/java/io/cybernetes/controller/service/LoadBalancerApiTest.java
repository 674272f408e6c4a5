package io.cybernetes.controller.service;

import io.cybernetes.apiserver.ApiTestSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Services of type LoadBalancer with the application's controller manager: an address of
 * the pool in their status (the one asked for, or the first free), the cleanup finalizer,
 * a taken or foreign address refused with a warning event, the address given back on a
 * change of type and on delete; and the quota on load balancers and node ports.
 */
class LoadBalancerApiTest extends ApiTestSupport {

    static final String NS = "load-balancers";
    static final String SVC = "/api/v1/namespaces/" + NS + "/services";

    @BeforeEach
    void namespace() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
    }

    private Response create(String name, String extraSpec) {
        return post(SVC, "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"" + name + "\"},\"spec\":"
                + "{\"type\":\"LoadBalancer\",\"selector\":{\"app\":\"" + name + "\"},\"ports\":[{\"port\":80}]"
                + extraSpec + "}}");
    }

    private static String ingress(JsonNode svc) {
        return svc.path("status").path("loadBalancer").path("ingress").path(0).path("ip").asString("");
    }

    private String warning(String name) {
        JsonNode events = get("/api/v1/namespaces/" + NS + "/events?fieldSelector=involvedObject.name%3D" + name).json();
        for (JsonNode e : events.path("items")) {
            if ("AllocationFailed".equals(e.path("reason").asString())) {
                return e.path("message").asString();
            }
        }
        return "";
    }

    @Test
    void aLoadBalancerGetsAnAddressOfThePoolAndGivesItBack() {
        assertThat(create("front", "").code()).isEqualTo(201);
        String[] ip = new String[1];
        eventually(() -> {
            JsonNode svc = get(SVC + "/front").json();
            ip[0] = ingress(svc);
            assertThat(ip[0]).startsWith("198.51.100.");
            assertThat(svc.path("status").path("loadBalancer").path("ingress").path(0).path("ipMode").asString())
                    .isEqualTo("VIP");
            assertThat(svc.path("metadata").path("finalizers").toString())
                    .contains("service.kubernetes.io/load-balancer-cleanup");
            assertThat(svc.path("spec").path("ports").path(0).path("nodePort").asInt()).isBetween(30000, 32767);
        });
        // the same address asked for by another: refused with a warning, no address
        assertThat(create("copy", ",\"loadBalancerIP\":\"" + ip[0] + "\"").code()).isEqualTo(201);
        eventually(() -> assertThat(warning("copy"))
                .isEqualTo("Failed to allocate IP for \"" + NS + "/copy\": \"" + ip[0] + "\" is already in use"));
        assertThat(ingress(get(SVC + "/copy").json())).isEmpty();
        // one outside the pool: refused too
        Response foreign = post(SVC, "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"foreign\","
                + "\"annotations\":{\"metallb.universe.tf/loadBalancerIPs\":\"203.0.113.9\"}},\"spec\":{\"type\":"
                + "\"LoadBalancer\",\"ports\":[{\"port\":80}]}}");
        assertThat(foreign.code()).isEqualTo(201);
        eventually(() -> assertThat(warning("foreign"))
                .isEqualTo("Failed to allocate IP for \"" + NS + "/foreign\": \"203.0.113.9\" is not allowed in config"));
        // the first becomes a ClusterIP Service: address, node port and finalizer go; the one waiting for it gets it
        Response changed = patch(SVC + "/front", "application/merge-patch+json", "{\"spec\":{\"type\":\"ClusterIP\"}}");
        assertThat(changed.code()).as(changed.body()).isEqualTo(200);
        eventually(() -> {
            JsonNode svc = get(SVC + "/front").json();
            assertThat(ingress(svc)).isEmpty();
            assertThat(svc.path("metadata").path("finalizers").size()).isZero();
            assertThat(svc.path("spec").path("ports").path(0).has("nodePort")).isFalse();
            assertThat(ingress(get(SVC + "/copy").json())).isEqualTo(ip[0]);
        });
        // deleted: the controller lets it go once its load balancer is gone
        assertThat(delete(SVC + "/copy").code()).isIn(200, 202);
        eventually(() -> assertThat(get(SVC + "/copy").code()).isEqualTo(404));
        assertThat(delete(SVC + "/front").code()).isEqualTo(200);
        assertThat(delete(SVC + "/foreign").code()).isIn(200, 202);
        eventually(() -> assertThat(get(SVC + "/foreign").code()).isEqualTo(404));
    }

    @Test
    void aQuotaLimitsLoadBalancersAndNodePorts() {
        String ns = "lb-quota";
        assertThat(createNamespace(ns).code()).isIn(201, 409);
        Response q = post("/api/v1/namespaces/" + ns + "/resourcequotas", "{\"apiVersion\":\"v1\",\"kind\":"
                + "\"ResourceQuota\",\"metadata\":{\"name\":\"lb\"},\"spec\":{\"hard\":{\"services.loadbalancers\":\"1\","
                + "\"services.nodeports\":\"2\"}}}");
        assertThat(q.code()).as(q.body()).isEqualTo(201);
        String base = "/api/v1/namespaces/" + ns + "/services";
        Response first = post(base, "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"one\"},\"spec\":"
                + "{\"type\":\"LoadBalancer\",\"ports\":[{\"port\":80}]}}");
        assertThat(first.code()).as(first.body()).isEqualTo(201);
        Response second = post(base, "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"two\"},\"spec\":"
                + "{\"type\":\"LoadBalancer\",\"ports\":[{\"port\":80}]}}");
        assertThat(second.code()).isEqualTo(403);
        assertThat(second.text("message")).isEqualTo("services \"two\" is forbidden: exceeded quota: lb, requested:"
                + " services.loadbalancers=1, used: services.loadbalancers=1, limited: services.loadbalancers=1");
        Response ports = post(base, "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"np\"},\"spec\":"
                + "{\"type\":\"NodePort\",\"ports\":[{\"name\":\"a\",\"port\":80},{\"name\":\"b\",\"port\":81}]}}");
        assertThat(ports.code()).isEqualTo(403);
        assertThat(ports.text("message")).contains("exceeded quota: lb, requested: services.nodeports=2, used:"
                + " services.nodeports=1, limited: services.nodeports=2");
        assertThat(get(base + "/two").code()).isEqualTo(404);
        assertThat(get(base + "/np").code()).isEqualTo(404);
        // a change of type is counted too
        Response cluster = post(base, "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"plain\"},"
                + "\"spec\":{\"ports\":[{\"port\":80}]}}");
        assertThat(cluster.code()).isEqualTo(201);
        Response toLb = patch(base + "/plain", "application/merge-patch+json", "{\"spec\":{\"type\":\"LoadBalancer\"}}");
        assertThat(toLb.code()).isEqualTo(403);
        assertThat(toLb.text("message")).contains("exceeded quota: lb");
    }
}
