package io.cybernetes.admission.serviceaccount;

import io.cybernetes.admission.Attributes;
import io.cybernetes.admission.ClusterReader;
import io.cybernetes.admission.MutatingAdmissionPlugin;
import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import tools.jackson.databind.node.ObjectNode;

/**
 * Gives every new pod a ServiceAccount: {@code spec.serviceAccountName} defaults to
 * {@code default}, and a pod naming another account is refused until that account exists.
 * The {@code default} account is made by the API server when the namespace appears, a
 * moment later, so a pod created in that moment is not refused for it.
 */
public final class ServiceAccountAdmission implements MutatingAdmissionPlugin {

    public static final String NAME = "ServiceAccount";
    static final String DEFAULT = "default";

    private final ClusterReader cluster;

    public ServiceAccountAdmission(ClusterReader cluster) {
        this.cluster = cluster;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean handles(Attributes a) {
        return a.isWriteOf("", "pods", Attributes.Operation.CREATE);
    }

    @Override
    public void admit(Attributes a) {
        ObjectNode spec = Json.child(a.object(), "spec");
        String sa = Json.text(spec, "serviceAccountName");
        if (sa == null || sa.isEmpty()) {
            String legacy = Json.text(spec, "serviceAccount");
            sa = legacy == null || legacy.isEmpty() ? DEFAULT : legacy;
            spec.put("serviceAccountName", sa);
        }
        if (!sa.equals(DEFAULT) && cluster.get("", "serviceaccounts", a.namespace(), sa).isEmpty()) {
            throw ApiException.forbidden("", "pods", a.name(), "error looking up service account " + a.namespace() + "/"
                    + sa + ": serviceaccount \"" + sa + "\" not found");
        }
    }
}
