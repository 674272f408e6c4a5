package io.cybernetes.apiserver;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * API Priority and Fairness through the API: Kubernetes' bootstrap FlowSchemas and priority levels are
 * there and kept; every response names the schema and level that classified it; a user flooding the
 * server through a level of its own gets 429s with Retry-After while another user is served; malformed
 * objects are refused in Kubernetes' words.
 */
class FlowControlApiTest extends ApiTestSupport {

    private static final String FC = "/apis/flowcontrol.apiserver.k8s.io/v1";

    @TempDir
    Path dir;

    @Test
    void theBootstrapObjectsAreServedAndKept() {
        Kubectl.Run schemas = new Kubectl(endpoints.adminKubeconfig(), dir).run("get", "flowschemas");
        assertThat(schemas.out()).as(schemas.all()).containsPattern("exempt +exempt +1 ")
                .containsPattern("global-default +global-default +9900 +ByUser")
                .contains("catch-all", "system-leader-election", "kube-controller-manager", "service-accounts");
        Kubectl.Run levels = new Kubectl(endpoints.adminKubeconfig(), dir).run("get", "prioritylevelconfigurations");
        assertThat(levels.out()).as(levels.all()).containsPattern("workload-low +Limited +100 +128 +6 +50")
                .containsPattern("exempt +Exempt");
        // a mandatory object deleted comes back, and its spec is the server's
        assertThat(delete(FC + "/flowschemas/catch-all").code()).isEqualTo(200);
        eventually(() -> assertThat(get(FC + "/flowschemas/catch-all").code()).isEqualTo(200));
        assertThat(patch(FC + "/flowschemas/catch-all", "application/merge-patch+json",
                "{\"spec\":{\"matchingPrecedence\":9999}}").code()).isEqualTo(200);
        eventually(() -> assertThat(get(FC + "/flowschemas/catch-all").json().path("spec").path("matchingPrecedence")
                .asInt()).isEqualTo(10000));
    }

    @Test
    void responsesNameTheirSchemaAndLevel() {
        JsonNode exempt = get(FC + "/flowschemas/exempt").json();
        Response admin = get("/api/v1/namespaces/default/configmaps");
        assertThat(admin.headers().firstValue("X-Kubernetes-PF-FlowSchema-UID")).contains(
                exempt.path("metadata").path("uid").asString());
        JsonNode global = get(FC + "/flowschemas/global-default").json();
        JsonNode level = get(FC + "/prioritylevelconfigurations/global-default").json();
        Response alice = callAs("alice-token", "GET", "/api", null, null, "application/json");
        assertThat(alice.headers().firstValue("X-Kubernetes-PF-FlowSchema-UID")).contains(
                global.path("metadata").path("uid").asString());
        assertThat(alice.headers().firstValue("X-Kubernetes-PF-PriorityLevel-UID")).contains(
                level.path("metadata").path("uid").asString());
        // a watch is classified too, holds its seats while its initial events go out, and none after
        String ns = "fc-watch-" + System.nanoTime();
        assertThat(createNamespace(ns).code()).isEqualTo(201);
        assertThat(post("/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/rolebindings", """
                {"metadata":{"name":"alice-views"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io",
                 "kind":"ClusterRole","name":"view"},"subjects":[{"kind":"User","name":"alice"}]}""").code())
                .isEqualTo(201);
        eventually(() -> {
            Response watch = callAs("alice-token", "GET", "/api/v1/namespaces/" + ns + "/configmaps?watch=true"
                    + "&timeoutSeconds=1", null, null, "application/json");
            assertThat(watch.code()).as(watch.body()).isEqualTo(200);
            assertThat(watch.headers().firstValue("X-Kubernetes-PF-PriorityLevel-UID")).contains(
                    level.path("metadata").path("uid").asString());
        });
        eventually(() -> assertThat(get("/debug/api_priority_and_fairness/dump_priority_levels").body().lines()
                .filter(l -> l.startsWith("global-default,")).findFirst().orElseThrow().split(", ")[4])
                .as("executing seats of global-default").isEqualTo("0"));
    }

    @Test
    void aFloodingUserGets429sWhileOthersAreServed() throws Exception {
        String name = "flood-" + UUID.randomUUID().toString().substring(0, 6);
        assertThat(post(FC + "/prioritylevelconfigurations", """
                {"metadata":{"name":"%s"},"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":1,
                 "lendablePercent":0,"borrowingLimitPercent":0,"limitResponse":{"type":"Reject"}}}}""".formatted(name))
                .code()).isEqualTo(201);
        assertThat(post(FC + "/flowschemas", """
                {"metadata":{"name":"%s"},"spec":{"priorityLevelConfiguration":{"name":"%s"},"matchingPrecedence":500,
                 "distinguisherMethod":{"type":"ByUser"},"rules":[{"subjects":[{"kind":"User","user":{"name":"carol"}}],
                  "nonResourceRules":[{"verbs":["*"],"nonResourceURLs":["*"]}],
                  "resourceRules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"],"clusterScope":true,
                   "namespaces":["*"]}]}]}}""".formatted(name, name)).code()).isEqualTo(201);
        String schemaUid = get(FC + "/flowschemas/" + name).json().path("metadata").path("uid").asString();
        eventually(() -> assertThat(callAs("carol-token", "GET", "/version", null, null, "application/json").headers()
                .firstValue("X-Kubernetes-PF-FlowSchema-UID")).contains(schemaUid));
        ConcurrentLinkedQueue<Response> carol = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Integer> alice = new ConcurrentLinkedQueue<>();
        AtomicBoolean flooding = new AtomicBoolean(true);
        ExecutorService pool = Executors.newFixedThreadPool(34);
        for (int i = 0; i < 32; i++) {
            pool.submit(() -> {
                while (flooding.get()) {
                    carol.add(callAs("carol-token", "GET", "/openapi/v2", null, null, "application/json"));
                }
            });
        }
        pool.submit(() -> {
            while (flooding.get()) {
                alice.add(callAs("alice-token", "GET", "/openapi/v2", null, null,
                        "application/json").code());
            }
        });
        try {
            eventually(() -> {
                assertThat(carol.stream().anyMatch(r -> r.code() == 429)).isTrue();
                assertThat(alice).as("the other user's requests while the flood goes on").hasSizeGreaterThan(5);
            });
        } finally {
            flooding.set(false);
            pool.shutdown();
            assertThat(pool.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
        }
        Response refused = carol.stream().filter(r -> r.code() == 429).findFirst().orElseThrow();
        assertThat(refused.headers().firstValue("Retry-After")).contains("1");
        assertThat(refused.text("reason")).isEqualTo("TooManyRequests");
        assertThat(refused.text("message")).isEqualTo("Too many requests, please try again later.");
        assertThat(refused.headers().firstValue("X-Kubernetes-PF-FlowSchema-UID")).contains(schemaUid);
        assertThat(carol.stream().map(Response::code).distinct().toList()).as("answered or refused, never failed")
                .isSubsetOf(List.of(200, 429));
        assertThat(alice).as("the other user is never refused").isNotEmpty().allMatch(code -> code == 200);
        assertThat(get("/metrics").body()).contains("apiserver_flowcontrol_rejected_requests_total{flow_schema=\""
                + name + "\",priority_level=\"" + name + "\",reason=\"concurrency-limit\"}");
        assertThat(get("/debug/api_priority_and_fairness/dump_priority_levels").body()).contains(name + ", 0, ");
    }

    @Test
    void malformedObjectsAreRefused() {
        Response precedence = post(FC + "/flowschemas", """
                {"metadata":{"name":"bad-precedence"},"spec":{"priorityLevelConfiguration":{"name":"global-default"},
                 "matchingPrecedence":0,"rules":[{"subjects":[{"kind":"Robot"}]}]}}""");
        assertThat(precedence.code()).isEqualTo(422);
        assertThat(precedence.text("message")).contains("spec.matchingPrecedence: Invalid value: 0: must be a positive"
                + " value", "spec.rules[0].subjects[0].kind: Unsupported value: \"Robot\"",
                "at least one of resourceRules and nonResourceRules has to be non-empty");
        Response hand = post(FC + "/prioritylevelconfigurations", """
                {"metadata":{"name":"bad-hand"},"spec":{"type":"Limited","limited":{"limitResponse":{"type":"Queue",
                 "queuing":{"queues":4,"handSize":8,"queueLengthLimit":10}}}}}""");
        assertThat(hand.text("message")).contains("spec.limited.limitResponse.queuing.handSize: Invalid value: 8:"
                + " should not be greater than queues (4)");
        Response exempt = post(FC + "/prioritylevelconfigurations", """
                {"metadata":{"name":"not-exempt"},"spec":{"type":"Exempt"}}""");
        assertThat(exempt.text("message")).contains("type must be 'Exempt' if and only if name is 'exempt'");
    }
}
