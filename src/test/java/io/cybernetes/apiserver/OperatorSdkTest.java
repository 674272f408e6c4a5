package io.cybernetes.apiserver;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A real operator written with the Java Operator SDK, against the running application
 * over HTTPS: it installs its CRD, reconciles a WebApp into a Deployment it owns, writes
 * the WebApp's status, is triggered again when the Deployment changes, and the garbage
 * collector takes the Deployment when the WebApp goes.
 */
class OperatorSdkTest extends ApiTestSupport {

    static final String NS = "operator-sdk";

    static final String CRD = """
            apiVersion: apiextensions.k8s.io/v1
            kind: CustomResourceDefinition
            metadata: {name: webapps.ops.example.com}
            spec:
              group: ops.example.com
              scope: Namespaced
              names: {plural: webapps, singular: webapp, kind: WebApp}
              versions:
              - name: v1
                served: true
                storage: true
                subresources: {status: {}}
                schema:
                  openAPIV3Schema:
                    type: object
                    properties:
                      spec:
                        type: object
                        required: [image]
                        properties:
                          image: {type: string}
                          replicas: {type: integer, minimum: 0, default: 1}
                      status:
                        type: object
                        properties:
                          deployment: {type: string}
                          observedReplicas: {type: integer}
            """;

    public static class WebAppSpec {
        public String image;
        public Integer replicas;
    }

    public static class WebAppStatus {
        public String deployment;
        public Integer observedReplicas;
    }

    @Group("ops.example.com")
    @Version("v1")
    @Kind("WebApp")
    @Plural("webapps")
    public static class WebApp extends CustomResource<WebAppSpec, WebAppStatus> implements Namespaced {
    }

    /** Keeps a Deployment of the WebApp's image and replicas, owned by it; reports it in the status. */
    @ControllerConfiguration
    public static class WebAppReconciler implements Reconciler<WebApp> {

        final AtomicInteger reconciles = new AtomicInteger();

        @Override
        public UpdateControl<WebApp> reconcile(WebApp app, Context<WebApp> context) {
            reconciles.incrementAndGet();
            String name = app.getMetadata().getName();
            OwnerReference owner = new OwnerReference(app.getApiVersion(), true, true, app.getKind(), name,
                    app.getMetadata().getUid());
            Deployment desired = new DeploymentBuilder()
                    .withNewMetadata().withName(name).withNamespace(app.getMetadata().getNamespace())
                    .withOwnerReferences(owner).endMetadata()
                    .withNewSpec().withReplicas(app.getSpec().replicas)
                    .withNewSelector().withMatchLabels(Map.of("webapp", name)).endSelector()
                    .withNewTemplate().withNewMetadata().withLabels(Map.of("webapp", name)).endMetadata()
                    .withNewSpec().addNewContainer().withName("app").withImage(app.getSpec().image).endContainer()
                    .endSpec().endTemplate().endSpec().build();
            Deployment actual = context.getSecondaryResource(Deployment.class).orElse(null);
            if (actual == null || !app.getSpec().replicas.equals(actual.getSpec().getReplicas())
                    || !app.getSpec().image.equals(actual.getSpec().getTemplate().getSpec().getContainers().get(0)
                    .getImage())) {
                // the operator's fields are its own: taken back from whoever changed them (as operators apply)
                actual = context.getClient().resource(desired).fieldManager("webapp-operator").forceConflicts()
                        .serverSideApply();
            }
            WebAppStatus status = new WebAppStatus();
            status.deployment = actual.getMetadata().getName();
            status.observedReplicas = actual.getSpec().getReplicas();
            app.setStatus(status);
            return UpdateControl.patchStatus(app);
        }

        @Override
        public List<EventSource<?, WebApp>> prepareEventSources(EventSourceContext<WebApp> context) {
            return List.of(new InformerEventSource<>(InformerEventSourceConfiguration.from(Deployment.class,
                    WebApp.class).build(), context));
        }
    }

    @Test
    void anOperatorReconcilesItsKindIntoADeploymentItOwns() throws Exception {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        Config config = Config.fromKubeconfig(Files.readString(endpoints.adminKubeconfig()));
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
            CustomResourceDefinition crd = client.apiextensions().v1().customResourceDefinitions()
                    .load(new ByteArrayInputStream(CRD.getBytes(StandardCharsets.UTF_8))).item();
            client.resource(crd).serverSideApply();
            client.apiextensions().v1().customResourceDefinitions().withName("webapps.ops.example.com")
                    .waitUntilCondition(c -> c != null && c.getStatus() != null && c.getStatus().getConditions()
                            .stream().anyMatch(x -> x.getType().equals("Established")
                                    && x.getStatus().equals("True")), 30, TimeUnit.SECONDS);

            WebAppReconciler reconciler = new WebAppReconciler();
            Operator operator = new Operator(o -> o.withKubernetesClient(client).withCloseClientOnStop(false));
            operator.register(reconciler, c -> c.settingNamespace(NS));
            operator.start();
            try {
                WebApp app = new WebApp();
                app.getMetadata().setName("shop");
                app.getMetadata().setNamespace(NS);
                app.setSpec(new WebAppSpec());
                app.getSpec().image = "nginx:1.27";
                app.getSpec().replicas = 2;
                WebApp created = client.resource(app).create();

                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                    Deployment d = client.apps().deployments().inNamespace(NS).withName("shop").get();
                    assertThat(d).isNotNull();
                    assertThat(d.getSpec().getReplicas()).isEqualTo(2);
                    assertThat(d.getMetadata().getOwnerReferences()).singleElement()
                            .satisfies(r -> assertThat(r.getUid()).isEqualTo(created.getMetadata().getUid()));
                });
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                    WebApp seen = client.resources(WebApp.class).inNamespace(NS).withName("shop").get();
                    assertThat(seen.getStatus()).isNotNull();
                    assertThat(seen.getStatus().deployment).isEqualTo("shop");
                    assertThat(seen.getStatus().observedReplicas).isEqualTo(2);
                });

                // the Deployment changed behind the operator's back: it is put right again
                int before = reconciler.reconciles.get();
                client.apps().deployments().inNamespace(NS).withName("shop")
                        .edit(d -> new DeploymentBuilder(d).editSpec().withReplicas(5).endSpec().build());
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                    assertThat(reconciler.reconciles.get()).isGreaterThan(before);
                    assertThat(client.apps().deployments().inNamespace(NS).withName("shop").get().getSpec()
                            .getReplicas()).isEqualTo(2);
                });

                client.resources(WebApp.class).inNamespace(NS).withName("shop").delete();
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                        assertThat(client.apps().deployments().inNamespace(NS).withName("shop").get()).isNull());
            } finally {
                operator.stop();
            }
        }
    }
}
