package io.cybernetes.apiserver;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.ServerSideApplicable;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.io.IOException;
import java.nio.file.Files;

/**
 * The server-side apply scenarios through fabric8's client, as operators apply:
 * {@code serverSideApply()} with a field manager and {@code forceConflicts()}, and a
 * server-side apply patch of the status subresource; client-side apply is made as kubectl
 * makes it, over the API.
 */
class ApplyScenariosFabric8Test extends ApplyScenariosSupport {

    private KubernetesClient client;

    @BeforeAll
    void connect() throws IOException {
        client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(
                Files.readString(endpoints.adminKubeconfig()))).build();
    }

    @AfterAll
    void close() {
        if (client != null) {
            client.close();
        }
    }

    @Override
    protected String namespace() {
        return "ssa-fabric8";
    }

    @Override
    protected String apply(String namespace, Target target, String yaml, String manager, boolean force) {
        GenericKubernetesResource r = client.getKubernetesSerialization().unmarshal(yaml,
                GenericKubernetesResource.class);
        r.getMetadata().setNamespace(namespace);
        try {
            if (target.subresource() != null) {
                client.resource(r).subresource(target.subresource()).patch(new PatchContext.Builder()
                        .withPatchType(PatchType.SERVER_SIDE_APPLY).withFieldManager(manager).withForce(force)
                        .build(), r);
            } else {
                ServerSideApplicable<GenericKubernetesResource> op = client.resource(r).fieldManager(manager);
                if (force) {
                    op = op.forceConflicts();
                }
                op.serverSideApply();
            }
            return null;
        } catch (KubernetesClientException e) {
            return e.getCode() + " " + (e.getStatus() == null ? e.getMessage() : e.getStatus().getMessage());
        }
    }
}
