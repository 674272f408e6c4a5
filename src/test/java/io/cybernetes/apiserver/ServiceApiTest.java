package io.cybernetes.apiserver;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Services as kube-apiserver serves them: defaults, a cluster IP and node ports from their
 * ranges (asked for or handed out, refused with Kubernetes' words when taken or out of
 * range, given back on delete and on a change of type), validation, and the Table.
 */
class ServiceApiTest extends ApiTestSupport {

    static final String NS = "services-api";
    static final String SVC = "/api/v1/namespaces/" + NS + "/services";

    @BeforeEach
    void namespace() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
    }

    private static String service(String name, String spec) {
        return "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"" + name + "\"},\"spec\":" + spec + "}";
    }

    private Response create(String name, String spec) {
        return post(SVC, service(name, spec));
    }

    @Test
    void aServiceGetsKubernetesDefaultsAndAClusterIpOfTheRange() {
        Response r = create("web", "{\"selector\":{\"app\":\"web\"},\"ports\":[{\"port\":80}]}");
        assertThat(r.code()).as(r.body()).isEqualTo(201);
        JsonNode spec = r.json().path("spec");
        assertThat(spec.path("type").asString()).isEqualTo("ClusterIP");
        assertThat(spec.path("sessionAffinity").asString()).isEqualTo("None");
        assertThat(spec.path("internalTrafficPolicy").asString()).isEqualTo("Cluster");
        assertThat(spec.path("ipFamilyPolicy").asString()).isEqualTo("SingleStack");
        assertThat(spec.path("ipFamilies").toString()).isEqualTo("[\"IPv4\"]");
        assertThat(spec.path("ports").path(0).path("protocol").asString()).isEqualTo("TCP");
        assertThat(spec.path("ports").path(0).path("targetPort").asInt()).isEqualTo(80);
        assertThat(spec.has("externalTrafficPolicy")).isFalse();
        String ip = spec.path("clusterIP").asString();
        assertThat(ip).startsWith("10.");
        int second = Integer.parseInt(ip.split("\\.")[1]);
        assertThat(second).isBetween(96, 111);
        assertThat(spec.path("clusterIPs").toString()).isEqualTo("[\"" + ip + "\"]");
        assertThat(r.json().path("status").path("loadBalancer").isObject()).isTrue();
        // applied again without the address: it keeps it, and no change is no write
        Response again = put(SVC + "/web", "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"web\","
                + "\"resourceVersion\":\"" + r.text("metadata.resourceVersion") + "\"},\"spec\":{\"selector\":"
                + "{\"app\":\"web\"},\"ports\":[{\"port\":80}]}}");
        assertThat(again.code()).as(again.body()).isEqualTo(200);
        assertThat(again.text("spec.clusterIP")).isEqualTo(ip);
        assertThat(again.text("metadata.resourceVersion")).isEqualTo(r.text("metadata.resourceVersion"));
    }

    @Test
    void aDryRunShowsTheAddressAndPortsAServiceWouldGetAndTakesNone() {
        Response dry = post(SVC + "?dryRun=All", service("dry", "{\"type\":\"NodePort\",\"ports\":[{\"port\":80}]}"));
        assertThat(dry.code()).as(dry.body()).isEqualTo(201);
        String ip = dry.text("spec.clusterIP");
        int port = dry.json().path("spec").path("ports").path(0).path("nodePort").asInt();
        assertThat(ip).startsWith("10.");
        assertThat(port).isBetween(30000, 32767);
        assertThat(get(SVC + "/dry").code()).isEqualTo(404);
        // nothing was taken: a Service asking for that very address and port gets them
        Response real = create("dry-taken", "{\"type\":\"NodePort\",\"clusterIP\":\"" + ip + "\",\"ports\":"
                + "[{\"port\":80,\"nodePort\":" + port + "}]}");
        assertThat(real.code()).as(real.body()).isEqualTo(201);
        // and a dry run asking for what is taken meets the refusal the create would
        Response refused = post(SVC + "?dryRun=All", service("dry-2", "{\"clusterIP\":\"" + ip + "\",\"ports\":"
                + "[{\"port\":80}]}"));
        assertThat(refused.code()).isEqualTo(422);
        assertThat(refused.text("message")).contains("provided IP is already allocated");
        assertThat(delete(SVC + "/dry-taken").code()).isEqualTo(200);
    }

    @Test
    void anAddressAskedForIsHonouredOnceAndRefusedWhenTakenOrOutOfRange() {
        Response first = create("fixed-a", "{\"clusterIP\":\"10.96.7.7\",\"ports\":[{\"port\":80}]}");
        assertThat(first.code()).as(first.body()).isEqualTo(201);
        assertThat(first.text("spec.clusterIP")).isEqualTo("10.96.7.7");
        Response taken = create("fixed-b", "{\"clusterIP\":\"10.96.7.7\",\"ports\":[{\"port\":80}]}");
        assertThat(taken.code()).isEqualTo(422);
        assertThat(taken.text("message")).isEqualTo("Service \"fixed-b\" is invalid: spec.clusterIPs: Invalid value:"
                + " []string{\"10.96.7.7\"}: failed to allocate IP 10.96.7.7: provided IP is already allocated");
        Response outside = create("fixed-c", "{\"clusterIP\":\"10.0.0.5\",\"ports\":[{\"port\":80}]}");
        assertThat(outside.code()).isEqualTo(422);
        assertThat(outside.text("message")).isEqualTo("Service \"fixed-c\" is invalid: spec.clusterIPs: Invalid value:"
                + " []string{\"10.0.0.5\"}: failed to allocate IP 10.0.0.5: the provided IP (10.0.0.5) is not in the"
                + " valid range. The range of valid IPs is 10.96.0.0/12");
        assertThat(get(SVC + "/fixed-b").code()).isEqualTo(404);
        Response changed = patch(SVC + "/fixed-a", "application/merge-patch+json", "{\"spec\":{\"clusterIP\":\"10.96.7.8\","
                + "\"clusterIPs\":[\"10.96.7.8\"]}}");
        assertThat(changed.code()).isEqualTo(422);
        assertThat(changed.text("message")).contains("spec.clusterIPs[0]: Invalid value: []string{\"10.96.7.8\"}:"
                + " may not change once set");
        // deleted, its address is free again
        assertThat(delete(SVC + "/fixed-a").code()).isEqualTo(200);
        Response reused = create("fixed-b", "{\"clusterIP\":\"10.96.7.7\",\"ports\":[{\"port\":80}]}");
        assertThat(reused.code()).as(reused.body()).isEqualTo(201);
    }

    @Test
    void nodePortsAreHandedOutRefusedWhenTakenAndGivenBackWhenTheTypeChanges() {
        Response np = create("np-a", "{\"type\":\"NodePort\",\"ports\":[{\"name\":\"http\",\"port\":80,"
                + "\"nodePort\":30080},{\"name\":\"https\",\"port\":443,\"targetPort\":\"https\"}]}");
        assertThat(np.code()).as(np.body()).isEqualTo(201);
        JsonNode ports = np.json().path("spec").path("ports");
        assertThat(ports.path(0).path("nodePort").asInt()).isEqualTo(30080);
        assertThat(ports.path(1).path("nodePort").asInt()).isBetween(30000, 32767);
        assertThat(ports.path(1).path("targetPort").asString()).isEqualTo("https");
        assertThat(np.text("spec.externalTrafficPolicy")).isEqualTo("Cluster");
        Response taken = create("np-b", "{\"type\":\"NodePort\",\"ports\":[{\"port\":80,\"nodePort\":30080}]}");
        assertThat(taken.code()).isEqualTo(422);
        assertThat(taken.text("message")).isEqualTo("Service \"np-b\" is invalid: spec.ports[0].nodePort: Invalid value:"
                + " 30080: provided port is already allocated");
        Response outside = create("np-c", "{\"type\":\"NodePort\",\"ports\":[{\"port\":80,\"nodePort\":8080}]}");
        assertThat(outside.code()).isEqualTo(422);
        assertThat(outside.text("message")).isEqualTo("Service \"np-c\" is invalid: spec.ports[0].nodePort: Invalid value:"
                + " 8080: provided port is not in the valid range. The range of valid ports is 30000-32767");
        // back to ClusterIP: the node ports go, and are free for another
        Response toClusterIp = patch(SVC + "/np-a", "application/merge-patch+json",
                "{\"spec\":{\"type\":\"ClusterIP\",\"externalTrafficPolicy\":null}}");
        assertThat(toClusterIp.code()).as(toClusterIp.body()).isEqualTo(200);
        assertThat(toClusterIp.json().path("spec").path("ports").path(0).has("nodePort")).isFalse();
        Response reused = create("np-b", "{\"type\":\"NodePort\",\"ports\":[{\"port\":80,\"nodePort\":30080}]}");
        assertThat(reused.code()).as(reused.body()).isEqualTo(201);
        // and to NodePort again: a new node port is handed out
        Response back = patch(SVC + "/np-a", "application/merge-patch+json", "{\"spec\":{\"type\":\"NodePort\"}}");
        assertThat(back.code()).as(back.body()).isEqualTo(200);
        assertThat(back.json().path("spec").path("ports").path(0).path("nodePort").asInt()).isBetween(30000, 32767)
                .isNotEqualTo(30080);
    }

    @Test
    void aRefusedAllocationHoldsNeitherQuotaNorAddress() {
        String ns = "services-refused";
        assertThat(createNamespace(ns).code()).isIn(201, 409);
        String quotas = "/api/v1/namespaces/" + ns + "/resourcequotas";
        assertThat(post(quotas, "{\"apiVersion\":\"v1\",\"kind\":\"ResourceQuota\",\"metadata\":{\"name\":\"q\"},"
                + "\"spec\":{\"hard\":{\"count/services\":\"5\",\"services.nodeports\":\"5\"}}}").code())
                .isIn(201, 409);
        String services = "/api/v1/namespaces/" + ns + "/services";
        Response held = post(services, service("holder", "{\"type\":\"NodePort\",\"ports\":[{\"port\":80,"
                + "\"nodePort\":30555}]}"));
        assertThat(held.code()).as(held.body()).isEqualTo(201);
        for (int i = 0; i < 3; i++) {
            Response refused = post(services, service("refused", "{\"type\":\"NodePort\",\"clusterIP\":"
                    + "\"10.96.9.9\",\"ports\":[{\"port\":80,\"nodePort\":30555}]}"));
            assertThat(refused.code()).isEqualTo(422);
            assertThat(refused.text("message")).contains("provided port is already allocated");
        }
        JsonNode used = get(quotas + "/q").json().path("status").path("used");
        assertThat(used.path("count/services").asString()).isEqualTo("1");
        assertThat(used.path("services.nodeports").asString()).isEqualTo("1");
        // the address the refused Service asked for was not kept either
        Response free = post(services, service("takes-the-address", "{\"clusterIP\":\"10.96.9.9\",\"ports\":"
                + "[{\"port\":80}]}"));
        assertThat(free.code()).as(free.body()).isEqualTo(201);
    }

    @Test
    void clientIpAffinityGetsItsTimeoutAndOnlyIpv4IsServed() {
        Response sticky = create("sticky", "{\"sessionAffinity\":\"ClientIP\",\"ports\":[{\"port\":80}]}");
        assertThat(sticky.code()).as(sticky.body()).isEqualTo(201);
        assertThat(sticky.json().path("spec").path("sessionAffinityConfig").path("clientIP").path("timeoutSeconds")
                .asInt()).isEqualTo(10800);
        Response tooLong = create("sticky-long", "{\"sessionAffinity\":\"ClientIP\",\"sessionAffinityConfig\":"
                + "{\"clientIP\":{\"timeoutSeconds\":86401}},\"ports\":[{\"port\":80}]}");
        assertThat(tooLong.code()).isEqualTo(422);
        assertThat(tooLong.text("message")).contains("spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value:"
                + " 86401: must be greater than 0 and less than 86400");
        Response v6 = create("v6", "{\"ipFamilies\":[\"IPv6\"],\"ports\":[{\"port\":80}]}");
        assertThat(v6.code()).isEqualTo(422);
        assertThat(v6.text("message")).isEqualTo("Service \"v6\" is invalid: spec.ipFamilies[0]: Invalid value:"
                + " \"IPv6\": not configured on this cluster");
        Response dual = create("dual", "{\"ipFamilyPolicy\":\"RequireDualStack\",\"ports\":[{\"port\":80}]}");
        assertThat(dual.code()).isEqualTo(422);
        assertThat(dual.text("message")).isEqualTo("Service \"dual\" is invalid: spec.ipFamilyPolicy: Invalid value:"
                + " \"RequireDualStack\": this cluster is not configured for dual-stack services");
        // preferring dual-stack on a single-stack cluster gets the one family there is
        Response prefer = create("prefer", "{\"ipFamilyPolicy\":\"PreferDualStack\",\"ports\":[{\"port\":80}]}");
        assertThat(prefer.code()).as(prefer.body()).isEqualTo(201);
        assertThat(prefer.json().path("spec").path("ipFamilies").toString()).isEqualTo("[\"IPv4\"]");
        assertThat(prefer.json().path("spec").path("clusterIPs").size()).isEqualTo(1);
        assertThat(get(SVC + "/v6").code()).isEqualTo(404);
        assertThat(get(SVC + "/dual").code()).isEqualTo(404);
    }

    @Test
    void headlessExternalNameAndLoadBalancerServices() {
        Response headless = create("headless", "{\"clusterIP\":\"None\",\"selector\":{\"app\":\"db\"}}");
        assertThat(headless.code()).as(headless.body()).isEqualTo(201);
        assertThat(headless.json().path("spec").path("clusterIPs").toString()).isEqualTo("[\"None\"]");
        Response external = create("external", "{\"type\":\"ExternalName\",\"externalName\":\"db.example.com\"}");
        assertThat(external.code()).as(external.body()).isEqualTo(201);
        assertThat(external.json().path("spec").has("clusterIP")).isFalse();
        assertThat(external.json().path("spec").has("ipFamilies")).isFalse();
        Response lb = create("lb", "{\"type\":\"LoadBalancer\",\"externalTrafficPolicy\":\"Local\",\"ports\":"
                + "[{\"port\":443}]}");
        assertThat(lb.code()).as(lb.body()).isEqualTo(201);
        assertThat(lb.json().path("spec").path("healthCheckNodePort").asInt()).isBetween(30000, 32767);
        assertThat(lb.json().path("spec").path("allocateLoadBalancerNodePorts").asBoolean()).isTrue();
        Response table = call("GET", SVC + "?fieldSelector=metadata.name%3Dexternal", null, null,
                "application/json;as=Table;v=v1;g=meta.k8s.io", true);
        JsonNode row = table.json().path("rows").path(0).path("cells");
        assertThat(row.path(1).asString()).isEqualTo("ExternalName");
        assertThat(row.path(2).asString()).isEqualTo("<none>");
        assertThat(row.path(3).asString()).isEqualTo("db.example.com");
        assertThat(row.path(4).asString()).isEqualTo("<none>");
    }

    @Test
    void badServicesAreRefusedInKubernetesWords() {
        assertInvalid("{\"type\":\"ClusterIP\"}", "spec.ports: Required value");
        assertInvalid("{\"type\":\"Bogus\",\"ports\":[{\"port\":80}]}",
                "spec.type: Unsupported value: \"Bogus\": supported values: \"ClusterIP\", \"ExternalName\","
                        + " \"LoadBalancer\", \"NodePort\"");
        assertInvalid("{\"ports\":[{\"port\":80},{\"port\":81}]}", "spec.ports[0].name: Required value");
        assertInvalid("{\"ports\":[{\"port\":0}]}", "spec.ports[0].port: Invalid value: 0: must be between 1 and"
                + " 65535, inclusive");
        assertInvalid("{\"ports\":[{\"port\":80,\"protocol\":\"ICMP\"}]}", "spec.ports[0].protocol: Unsupported value:"
                + " \"ICMP\": supported values: \"SCTP\", \"TCP\", \"UDP\"");
        assertInvalid("{\"ports\":[{\"port\":80,\"nodePort\":30001}]}", "spec.ports[0].nodePort: Forbidden: may not"
                + " be used when `type` is 'ClusterIP'");
        assertInvalid("{\"type\":\"NodePort\",\"clusterIP\":\"None\",\"ports\":[{\"port\":80}]}",
                "spec.clusterIPs[0]: Invalid value: \"None\": may not be set to 'None' for NodePort services");
        assertInvalid("{\"clusterIP\":\"10.96.0.300\",\"ports\":[{\"port\":80}]}", "spec.clusterIPs[0]: Invalid value:"
                + " \"10.96.0.300\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)");
        assertInvalid("{\"type\":\"ExternalName\"}", "spec.externalName: Required value");
        assertInvalid("{\"ports\":[{\"port\":80,\"targetPort\":\"Not_A_Name\"}]}", "spec.ports[0].targetPort: Invalid"
                + " value: \"Not_A_Name\": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
        assertInvalid("{\"externalTrafficPolicy\":\"Local\",\"ports\":[{\"port\":80}]}", "spec.externalTrafficPolicy:"
                + " Invalid value: \"Local\": may only be set when `type` is 'NodePort' or 'LoadBalancer'");
        Response badName = post(SVC, service("1st-service", "{\"ports\":[{\"port\":80}]}"));
        assertThat(badName.code()).isEqualTo(422);
        assertThat(badName.text("message")).contains("metadata.name: Invalid value: \"1st-service\": a DNS-1035 label");
    }

    private void assertInvalid(String spec, String cause) {
        Response r = create("bad", spec);
        assertThat(r.code()).as(r.body()).isEqualTo(422);
        assertThat(r.text("message")).contains(cause);
        assertThat(get(SVC + "/bad").code()).isEqualTo(404);
    }
}
