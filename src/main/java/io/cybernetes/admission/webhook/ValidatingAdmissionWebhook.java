package io.cybernetes.admission.webhook;

import io.cybernetes.admission.Attributes;
import io.cybernetes.admission.ClusterReader;
import io.cybernetes.admission.ValidatingAdmissionPlugin;

/** ValidatingWebhookConfigurations: each matching webhook may deny the write; patches are not theirs to make. */
public final class ValidatingAdmissionWebhook implements ValidatingAdmissionPlugin {

    public static final String NAME = "ValidatingAdmissionWebhook";

    private final Webhooks webhooks;

    public ValidatingAdmissionWebhook(ClusterReader cluster, io.cybernetes.admission.AccessChecker access) {
        this.webhooks = new Webhooks("validatingwebhookconfigurations", cluster, access);
    }

    @Override
    public String name() {
        return NAME;
    }

    /** Webhook configurations themselves are never sent to webhooks, so a broken one can always be fixed. */
    @Override
    public boolean handles(Attributes a) {
        return !a.group().equals("admissionregistration.k8s.io");
    }

    @Override
    public void validate(Attributes a) {
        webhooks.run(a, (webhook, answer) -> {
        });
    }
}
