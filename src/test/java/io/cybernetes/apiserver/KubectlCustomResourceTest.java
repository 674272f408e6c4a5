package io.cybernetes.apiserver;

import io.cybernetes.apiserver.Kubectl.Run;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The real kubectl with a kind of one's own: a CRD applied from a file, instances applied,
 * listed with the printer columns (and the wide ones), found by short name and category,
 * explained from OpenAPI, scaled, patched and deleted, and the CRD deleted again.
 */
class KubectlCustomResourceTest extends ApiTestSupport {

    @TempDir
    Path dir;

    private Run kubectl(String... args) {
        return new Kubectl(endpoints.adminKubeconfig(), dir).run(args);
    }

    private Path file(String name, String content) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, content, StandardCharsets.UTF_8);
        return p;
    }

    private static void ok(Run r) {
        assertThat(r.exit()).as(r.all()).isZero();
    }

    @Test
    void aCustomKindThroughKubectl() throws Exception {
        assertThat(Path.of(Kubectl.PATH)).as("kubectl must be installed for these tests").isExecutable();
        String group = "kubectl.example.com";
        // other tests' CRDs serve widgets too (in other groups): names are qualified, the short name is our own
        String widgets = "widgets." + group;
        Path crd = file("crd.yaml", CustomResourceApiTest.widgetCrd(group).replace("shortNames: [wd]",
                "shortNames: [kwd]").replace("categories: [toys]", "categories: [toys, all]"));
        Run applied = kubectl("apply", "-f", crd.toString());
        ok(applied);
        assertThat(applied.out()).contains("customresourcedefinition.apiextensions.k8s.io/widgets." + group + " created");
        ok(kubectl("wait", "--for=condition=Established", "--timeout=30s", "crd/widgets." + group));
        ok(kubectl("create", "namespace", "kubectl-crs"));

        Path instances = file("widgets.yaml", """
                apiVersion: %1$s/v1
                kind: Widget
                metadata:
                  name: w1
                spec:
                  color: red
                  replicas: 2
                ---
                apiVersion: %1$s/v1
                kind: Widget
                metadata:
                  name: w2
                spec:
                  color: green
                """.formatted(group));
        Run created = kubectl("apply", "-n", "kubectl-crs", "-f", instances.toString());
        ok(created);
        assertThat(created.out()).contains("widget." + group + "/w1 created", "widget." + group + "/w2 created");

        Run listed = kubectl("get", widgets, "-n", "kubectl-crs");
        ok(listed);
        assertThat(listed.out().lines().findFirst().orElse("")).matches("NAME\\s+COLOR\\s+REPLICAS");
        assertThat(listed.out()).containsPattern("w1\\s+red\\s+2").containsPattern("w2\\s+green\\s+1");
        Run wide = kubectl("get", "kwd", "-n", "kubectl-crs", "-o", "wide");
        ok(wide);
        assertThat(wide.out().lines().findFirst().orElse("")).matches("NAME\\s+COLOR\\s+REPLICAS\\s+READY");
        Run byCategory = kubectl("get", "toys", "-n", "kubectl-crs", "-o", "name");
        ok(byCategory);
        assertThat(byCategory.out()).contains("widget." + group + "/w1", "widget." + group + "/w2");
        Run all = kubectl("get", "all", "-n", "kubectl-crs", "-o", "name");
        ok(all);
        assertThat(all.out()).contains("widget." + group + "/w1");

        Run explained = kubectl("explain", "widgets.spec.color", "--api-version=" + group + "/v1");
        ok(explained);
        assertThat(explained.out()).contains("color", "string");

        Run scaled = kubectl("scale", "-n", "kubectl-crs", widgets + "/w1", "--replicas=3");
        ok(scaled);
        assertThat(scaled.out()).contains("widget." + group + "/w1 scaled");
        Run replicas = kubectl("get", "-n", "kubectl-crs", widgets, "w1", "-o", "jsonpath={.spec.replicas}");
        assertThat(replicas.out()).isEqualTo("3");

        Run patched = kubectl("patch", "-n", "kubectl-crs", widgets, "w1", "--type=merge", "-p",
                "{\"spec\":{\"color\":\"blue\"}}");
        ok(patched);
        assertThat(patched.out()).contains("widget." + group + "/w1 patched");
        Run strategic = kubectl("patch", "-n", "kubectl-crs", widgets, "w1", "-p", "{\"spec\":{\"color\":\"red\"}}");
        assertThat(strategic.exit()).isNotZero();
        assertThat(strategic.err()).contains("application/strategic-merge-patch+json is not supported");

        Run invalid = kubectl("patch", "-n", "kubectl-crs", widgets, "w1", "--type=merge", "-p",
                "{\"spec\":{\"color\":\"pink\"}}");
        assertThat(invalid.exit()).isNotZero();
        assertThat(invalid.err()).contains("Unsupported value: \"pink\"");

        Run reapplied = kubectl("apply", "-n", "kubectl-crs", "-f", instances.toString());
        ok(reapplied);
        assertThat(reapplied.out()).contains("widget." + group + "/w1 configured");

        ok(kubectl("delete", "-n", "kubectl-crs", widgets, "w2"));
        Run deleted = kubectl("delete", "-f", crd.toString(), "--timeout=60s");
        ok(deleted);
        assertThat(deleted.out()).contains("customresourcedefinition.apiextensions.k8s.io \"widgets." + group
                + "\" deleted");
        eventually(() -> assertThat(kubectl("get", widgets, "-n", "kubectl-crs").exit()).isNotZero());
    }
}
