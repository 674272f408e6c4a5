package io.cybernetes.admission.internal;

import io.cybernetes.admission.AdmissionPlugin;
import io.cybernetes.admission.PluginContext;
import io.cybernetes.admission.defaulttolerationseconds.DefaultTolerationSeconds;
import io.cybernetes.admission.priority.Priority;
import io.cybernetes.admission.storage.DefaultStorageClass;
import io.cybernetes.admission.storage.PersistentVolumeClaimResize;
import io.cybernetes.admission.storage.StorageObjectInUseProtection;
import io.cybernetes.admission.limitranger.LimitRanger;
import io.cybernetes.admission.namespacelifecycle.NamespaceLifecycle;
import io.cybernetes.admission.podsecurity.PodSecurity;
import io.cybernetes.admission.resourcequota.ResourceQuotaAdmission;
import io.cybernetes.admission.serviceaccount.ServiceAccountAdmission;
import io.cybernetes.admission.webhook.MutatingAdmissionWebhook;
import io.cybernetes.admission.webhook.ValidatingAdmissionWebhook;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import io.cybernetes.admission.certificates.CertificateAdmission;
import io.cybernetes.admission.validatingpolicy.ValidatingAdmissionPolicyPlugin;

import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** The registry of built-in plugins: each name to the factory that makes it. */
final class AdmissionPlugins {

    private static final Map<String, Function<PluginContext, AdmissionPlugin>> FACTORIES = new LinkedHashMap<>();

    static {
        FACTORIES.put(NamespaceLifecycle.NAME, ctx -> new NamespaceLifecycle(ctx.cluster()));
        FACTORIES.put(LimitRanger.NAME, ctx -> new LimitRanger(ctx.cluster()));
        FACTORIES.put(ServiceAccountAdmission.NAME, ctx -> new ServiceAccountAdmission(ctx.cluster()));
        FACTORIES.put(DefaultTolerationSeconds.NAME, ctx -> new DefaultTolerationSeconds(300));
        FACTORIES.put(Priority.NAME, ctx -> new Priority(ctx.cluster()));
        FACTORIES.put(PodSecurity.NAME, ctx -> new PodSecurity(ctx.cluster()));
        FACTORIES.put(DefaultStorageClass.NAME, ctx -> new DefaultStorageClass(ctx.cluster()));
        FACTORIES.put(StorageObjectInUseProtection.NAME, ctx -> new StorageObjectInUseProtection());
        FACTORIES.put(PersistentVolumeClaimResize.NAME, ctx -> new PersistentVolumeClaimResize(ctx.cluster()));
        for (String name : List.of(CertificateAdmission.APPROVAL, CertificateAdmission.SIGNING,
                CertificateAdmission.SUBJECT_RESTRICTION)) {
            FACTORIES.put(name, ctx -> new CertificateAdmission(name, ctx.access()));
        }
        FACTORIES.put(ResourceQuotaAdmission.NAME, ctx -> new ResourceQuotaAdmission(ctx.cluster(), ctx.quotaWriter()));
        FACTORIES.put(MutatingAdmissionWebhook.NAME, ctx -> new MutatingAdmissionWebhook(ctx.cluster(), ctx.access()));
        FACTORIES.put(ValidatingAdmissionPolicyPlugin.NAME, ctx -> new ValidatingAdmissionPolicyPlugin(ctx.cluster(),
                ctx.registry(), ctx.access()));
        FACTORIES.put(ValidatingAdmissionWebhook.NAME, ctx -> new ValidatingAdmissionWebhook(ctx.cluster(), ctx.access()));
    }

    private AdmissionPlugins() {
    }

    /** The named plugins in order; an unknown name stops the start with the names there are. */
    static List<AdmissionPlugin> make(List<String> names, PluginContext ctx) {
        List<AdmissionPlugin> out = new ArrayList<>();
        for (String name : names) {
            Function<PluginContext, AdmissionPlugin> f = FACTORIES.get(name);
            if (f == null) {
                throw new IllegalArgumentException("unknown admission plugin \"" + name + "\" in cybernetes.admission.plugins;"
                        + " known: " + FACTORIES.keySet());
            }
            out.add(f.apply(ctx));
        }
        return out;
    }
}
