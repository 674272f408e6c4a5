package io.cybernetes.apiserver;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/** The admission chain through the API: defaults on new pods, policies per namespace, exact quotas under load. */
class AdmissionApiTest extends ApiTestSupport {

    static String pod(String name, String extra) {
        return "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"" + name + "\"},\"spec\":{" + extra
                + "\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}";
    }

    @Test
    void newPodsGetAServiceAccountTolerationsAndTheNamespacesDefaultResources() {
        String ns = "admission-defaults";
        assertThat(createNamespace(ns).code()).isIn(201, 409);
        assertThat(post("/api/v1/namespaces/" + ns + "/limitranges", "{\"apiVersion\":\"v1\",\"kind\":\"LimitRange\","
                + "\"metadata\":{\"name\":\"defaults\"},\"spec\":{\"limits\":[{\"type\":\"Container\",\"default\":"
                + "{\"cpu\":\"200m\"},\"max\":{\"cpu\":\"1\"}}]}}").code()).isEqualTo(201);
        eventually(() -> {
            Response created = post("/api/v1/namespaces/" + ns + "/pods?dryRun=All", pod("p", ""));
            assertThat(created.code()).as(created.body()).isEqualTo(201);
            assertThat(created.json().path("spec").path("containers").get(0).path("resources").path("limits").path("cpu")
                    .asString()).isEqualTo("200m");
        });
        Response created = post("/api/v1/namespaces/" + ns + "/pods", pod("p", ""));
        assertThat(created.code()).as(created.body()).isEqualTo(201);
        assertThat(created.text("spec.serviceAccountName")).isEqualTo("default");
        assertThat(created.json().path("spec").path("tolerations").toString())
                .contains("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable", "\"tolerationSeconds\":300");
        assertThat(created.json().path("spec").path("containers").get(0).path("resources").toString())
                .isEqualTo("{\"limits\":{\"cpu\":\"200m\"},\"requests\":{\"cpu\":\"200m\"}}");
        Response big = post("/api/v1/namespaces/" + ns + "/pods", "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":"
                + "{\"name\":\"big\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\",\"resources\":"
                + "{\"limits\":{\"cpu\":\"4\"}}}]}}");
        assertThat(big.code()).isEqualTo(403);
        assertThat(big.text("message")).isEqualTo("pods \"big\" is forbidden: maximum cpu usage per Container is 1, but"
                + " limit is 4");
        assertThat(get("/api/v1/namespaces/" + ns + "/pods/big").code()).isEqualTo(404);
    }

    @Test
    void aBaselineNamespaceRefusesPrivilegedPods() {
        String ns = "admission-baseline";
        assertThat(post("/api/v1/namespaces", "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\""
                + ns + "\",\"labels\":{\"pod-security.kubernetes.io/enforce\":\"baseline\"}}}").code()).isIn(201, 409);
        eventually(() -> {
            Response r = post("/api/v1/namespaces/" + ns + "/pods", pod("host", "\"hostNetwork\":true,"));
            assertThat(r.code()).as(r.body()).isEqualTo(403);
            assertThat(r.text("message")).isEqualTo("pods \"host\" is forbidden: violates PodSecurity \"baseline:latest\":"
                    + " host namespaces (hostNetwork=true)");
        });
        assertThat(post("/api/v1/namespaces/" + ns + "/pods", pod("plain", "")).code()).isEqualTo(201);
    }

    @Test
    void systemNamespacesCannotBeDeletedAndNothingIsCreatedInAMissingOne() {
        Response r = delete("/api/v1/namespaces/kube-system");
        assertThat(r.code()).isEqualTo(403);
        assertThat(r.text("message")).isEqualTo("namespaces \"kube-system\" is forbidden: this namespace may not be deleted");
        Response missing = post("/api/v1/namespaces/no-such-namespace/configmaps", "{\"apiVersion\":\"v1\",\"kind\":"
                + "\"ConfigMap\",\"metadata\":{\"name\":\"c\"}}");
        assertThat(missing.code()).isEqualTo(404);
        assertThat(missing.text("message")).isEqualTo("namespaces \"no-such-namespace\" not found");
    }

    @Test
    void sixteenConcurrentCreatesNeverPassTheQuotaAndUsageStaysExact() throws Exception {
        String ns = "admission-quota";
        assertThat(createNamespace(ns).code()).isIn(201, 409);
        assertThat(post("/api/v1/namespaces/" + ns + "/configmaps", "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                + "\"metadata\":{\"name\":\"before\"}}").code()).isEqualTo(201);
        Response quota = post("/api/v1/namespaces/" + ns + "/resourcequotas", "{\"apiVersion\":\"v1\",\"kind\":"
                + "\"ResourceQuota\",\"metadata\":{\"name\":\"q\"},\"spec\":{\"hard\":{\"count/configmaps\":\"10\","
                + "\"configmaps\":\"10\"}}}");
        assertThat(quota.code()).as(quota.body()).isEqualTo(201);
        assertThat(quota.text("status.used.count/configmaps")).as("what the namespace held already").isEqualTo("1");
        int writers = 16;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Integer>> results = new ArrayList<>();
        for (int i = 0; i < writers; i++) {
            String name = "cm-" + i;
            results.add(pool.submit(() -> {
                start.await();
                return post("/api/v1/namespaces/" + ns + "/configmaps", "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                        + "\"metadata\":{\"name\":\"" + name + "\"}}").code();
            }));
        }
        start.countDown();
        int created = 0;
        int refused = 0;
        for (Future<Integer> f : results) {
            int code = f.get();
            if (code == 201) {
                created++;
            } else {
                assertThat(code).isEqualTo(403);
                refused++;
            }
        }
        pool.shutdown();
        assertThat(created).isEqualTo(9);
        assertThat(refused).isEqualTo(7);
        assertThat(get("/api/v1/namespaces/" + ns + "/configmaps").json().path("items").size()).isEqualTo(10);
        Response q = get("/api/v1/namespaces/" + ns + "/resourcequotas/q");
        assertThat(q.text("status.used.count/configmaps")).isEqualTo("10");
        assertThat(q.text("status.used.configmaps")).isEqualTo("10");
        // deleting gives the usage back, and the freed slot can be taken again
        assertThat(delete("/api/v1/namespaces/" + ns + "/configmaps/cm-0").code() == 200
                || delete("/api/v1/namespaces/" + ns + "/configmaps/before").code() == 200).isTrue();
        assertThat(get("/api/v1/namespaces/" + ns + "/resourcequotas/q").text("status.used.count/configmaps"))
                .isEqualTo("9");
        assertThat(post("/api/v1/namespaces/" + ns + "/configmaps?dryRun=All", "{\"apiVersion\":\"v1\",\"kind\":"
                + "\"ConfigMap\",\"metadata\":{\"name\":\"again\"}}").code()).isEqualTo(201);
        assertThat(get("/api/v1/namespaces/" + ns + "/resourcequotas/q").text("status.used.count/configmaps"))
                .as("a dry run reserves nothing").isEqualTo("9");
        Response over = post("/api/v1/namespaces/" + ns + "/configmaps", "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                + "\"metadata\":{\"name\":\"again\"}}");
        assertThat(over.code()).isEqualTo(201);
        Response eleventh = post("/api/v1/namespaces/" + ns + "/configmaps", "{\"apiVersion\":\"v1\",\"kind\":"
                + "\"ConfigMap\",\"metadata\":{\"name\":\"eleventh\"}}");
        assertThat(eleventh.code()).isEqualTo(403);
        assertThat(eleventh.text("message")).startsWith("configmaps \"eleventh\" is forbidden: exceeded quota: q,"
                + " requested: ");
    }
}
