package io.cybernetes.admission.webhook;

import io.cybernetes.admission.Attributes;
import io.cybernetes.admission.ClusterReader;
import io.cybernetes.admission.MutatingAdmissionPlugin;
import io.cybernetes.api.JsonPatch;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** MutatingWebhookConfigurations: each matching webhook may answer with a JSON Patch, applied in turn. */
public final class MutatingAdmissionWebhook implements MutatingAdmissionPlugin {

    public static final String NAME = "MutatingAdmissionWebhook";

    private final Webhooks webhooks;

    public MutatingAdmissionWebhook(ClusterReader cluster, io.cybernetes.admission.AccessChecker access) {
        this.webhooks = new Webhooks("mutatingwebhookconfigurations", cluster, access);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean handles(Attributes a) {
        return a.object() != null && !a.group().equals("admissionregistration.k8s.io");
    }

    @Override
    public void admit(Attributes a) {
        webhooks.run(a, (webhook, answer) -> {
            if (answer.patch() != null) {
                JsonNode patched = JsonPatch.apply(a.object(), answer.patch());
                if (!(patched instanceof ObjectNode o)) {
                    throw io.cybernetes.api.ApiException.unprocessable("the patch made the object something else");
                }
                a.object().removeAll();
                a.object().setAll(o);
            }
        });
    }
}
