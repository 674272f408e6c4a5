package io.cybernetes.admission.defaulttolerationseconds;

import io.cybernetes.admission.Attributes;
import io.cybernetes.admission.MutatingAdmissionPlugin;
import io.cybernetes.api.Json;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Lets every new pod tolerate a not-ready or unreachable node for 300 seconds before the
 * node lifecycle controller evicts it, unless the pod already says how long.
 */
public final class DefaultTolerationSeconds implements MutatingAdmissionPlugin {

    public static final String NAME = "DefaultTolerationSeconds";
    public static final String NOT_READY = "node.kubernetes.io/not-ready";
    public static final String UNREACHABLE = "node.kubernetes.io/unreachable";
    private final long seconds;

    public DefaultTolerationSeconds(long seconds) {
        this.seconds = seconds;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean handles(Attributes a) {
        // on updates too, as Kubernetes': a pod replaced by its own manifest keeps the tolerations it was given
        return a.isWriteOf("", "pods", Attributes.Operation.CREATE, Attributes.Operation.UPDATE);
    }

    @Override
    public void admit(Attributes a) {
        ObjectNode spec = Json.child(a.object(), "spec");
        JsonNode existing = spec.get("tolerations");
        ArrayNode tolerations = existing instanceof ArrayNode arr ? arr : spec.putArray("tolerations");
        for (String key : new String[] {NOT_READY, UNREACHABLE}) {
            if (!tolerated(tolerations, key)) {
                ObjectNode t = tolerations.addObject();
                t.put("key", key);
                t.put("operator", "Exists");
                t.put("effect", "NoExecute");
                t.put("tolerationSeconds", seconds);
            }
        }
    }

    /** Whether a toleration already covers NoExecute taints with this key (or every key). */
    private static boolean tolerated(ArrayNode tolerations, String key) {
        for (JsonNode t : tolerations) {
            String k = t.path("key").asString("");
            String effect = t.path("effect").asString("");
            boolean keyMatches = k.equals(key) || (k.isEmpty() && "Exists".equals(t.path("operator").asString("")));
            if (keyMatches && (effect.isEmpty() || effect.equals("NoExecute"))) {
                return true;
            }
        }
        return false;
    }
}
