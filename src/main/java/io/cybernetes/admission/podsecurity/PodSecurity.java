package io.cybernetes.admission.podsecurity;

import io.cybernetes.admission.Attributes;
import io.cybernetes.admission.ClusterReader;
import io.cybernetes.api.PodResources;
import io.cybernetes.admission.ValidatingAdmissionPlugin;
import io.cybernetes.api.ApiException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The Pod Security Standards, enforced per namespace by the label
 * {@code pod-security.kubernetes.io/enforce}: {@code privileged} (the default) allows
 * everything; {@code baseline} refuses privileged containers, host namespaces, hostPath
 * volumes, host ports and non-default capabilities; {@code restricted} adds non-root,
 * no privilege escalation, dropped capabilities, a seccomp profile and a short list of
 * volume types. A refusal names every check the pod fails, as Kubernetes does.
 */
public final class PodSecurity implements ValidatingAdmissionPlugin {

    public static final String NAME = "PodSecurity";
    public static final String ENFORCE_LABEL = "pod-security.kubernetes.io/enforce";

    static final Set<String> BASELINE_CAPABILITIES = Set.of("AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID",
            "KILL", "MKNOD", "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT");
    static final Set<String> RESTRICTED_VOLUMES = Set.of("configMap", "csi", "downwardAPI", "emptyDir", "ephemeral",
            "persistentVolumeClaim", "projected", "secret");

    enum Level { PRIVILEGED, BASELINE, RESTRICTED }

    private final ClusterReader cluster;

    public PodSecurity(ClusterReader cluster) {
        this.cluster = cluster;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean handles(Attributes a) {
        return a.isWriteOf("", "pods", Attributes.Operation.CREATE, Attributes.Operation.UPDATE);
    }

    @Override
    public void validate(Attributes a) {
        Optional<ObjectNode> ns = cluster.get("", "namespaces", "", a.namespace());
        String label = ns.map(n -> n.path("metadata").path("labels").path(ENFORCE_LABEL).asString("")).orElse("");
        Level level = switch (label) {
            case "baseline" -> Level.BASELINE;
            case "restricted" -> Level.RESTRICTED;
            default -> Level.PRIVILEGED;
        };
        if (level == Level.PRIVILEGED) {
            return;
        }
        List<String> violations = violations(a.object().path("spec"), level);
        if (!violations.isEmpty()) {
            throw ApiException.forbidden(a.group(), a.resource(), a.name(), "violates PodSecurity \""
                    + level.name().toLowerCase() + ":latest\": " + String.join(", ", violations));
        }
    }

    static List<String> violations(JsonNode spec, Level level) {
        List<String> out = new ArrayList<>();
        List<String> hostNs = new ArrayList<>();
        for (String f : new String[] {"hostNetwork", "hostPID", "hostIPC"}) {
            if (spec.path(f).asBoolean(false)) {
                hostNs.add(f + "=true");
            }
        }
        if (!hostNs.isEmpty()) {
            out.add("host namespaces (" + String.join(", ", hostNs) + ")");
        }
        List<ObjectNode> containers = PodResources.containers(spec);
        for (ObjectNode c : containers) {
            String name = c.path("name").asString("");
            JsonNode sc = c.path("securityContext");
            if (sc.path("privileged").asBoolean(false)) {
                out.add("privileged (container \"" + name + "\" must not set securityContext.privileged=true)");
            }
            for (JsonNode cap : sc.path("capabilities").path("add")) {
                String capName = cap.asString("");
                boolean allowed = level == Level.RESTRICTED ? capName.equals("NET_BIND_SERVICE")
                        : BASELINE_CAPABILITIES.contains(capName);
                if (!allowed) {
                    out.add((level == Level.RESTRICTED ? "unrestricted capabilities" : "non-default capabilities")
                            + " (container \"" + name + "\" must not include \"" + capName
                            + "\" in securityContext.capabilities.add)");
                }
            }
            for (JsonNode port : c.path("ports")) {
                if (port.path("hostPort").asInt(0) != 0) {
                    out.add("hostPort (container \"" + name + "\" uses hostPort " + port.path("hostPort").asInt() + ")");
                }
            }
        }
        for (JsonNode v : spec.path("volumes")) {
            if (v.has("hostPath")) {
                out.add("hostPath volumes (volume \"" + v.path("name").asString("") + "\")");
            }
        }
        if (level == Level.RESTRICTED) {
            restricted(spec, containers, out);
        }
        return out;
    }

    private static void restricted(JsonNode spec, List<ObjectNode> containers, List<String> out) {
        JsonNode podSc = spec.path("securityContext");
        for (JsonNode v : spec.path("volumes")) {
            for (Map.Entry<String, JsonNode> e : v.properties()) {
                if (!e.getKey().equals("name") && !e.getKey().equals("hostPath") && !RESTRICTED_VOLUMES.contains(e.getKey())) {
                    out.add("restricted volume types (volume \"" + v.path("name").asString("")
                            + "\" uses restricted volume type \"" + e.getKey() + "\")");
                }
            }
        }
        for (ObjectNode c : containers) {
            String name = c.path("name").asString("");
            JsonNode sc = c.path("securityContext");
            if (!sc.has("allowPrivilegeEscalation") || sc.path("allowPrivilegeEscalation").asBoolean(true)) {
                out.add("allowPrivilegeEscalation != false (container \"" + name
                        + "\" must set securityContext.allowPrivilegeEscalation=false)");
            }
            boolean dropsAll = false;
            for (JsonNode d : sc.path("capabilities").path("drop")) {
                dropsAll |= d.asString("").equals("ALL");
            }
            if (!dropsAll) {
                out.add("unrestricted capabilities (container \"" + name
                        + "\" must set securityContext.capabilities.drop=[\"ALL\"])");
            }
            boolean nonRoot = sc.has("runAsNonRoot") ? sc.path("runAsNonRoot").asBoolean(false)
                    : podSc.path("runAsNonRoot").asBoolean(false);
            if (!nonRoot) {
                out.add("runAsNonRoot != true (pod or container \"" + name
                        + "\" must set securityContext.runAsNonRoot=true)");
            }
            if ((sc.has("runAsUser") ? sc.path("runAsUser") : podSc.path("runAsUser")).asLong(-1) == 0) {
                out.add("runAsUser=0 (container \"" + name + "\" must not set runAsUser=0)");
            }
            String seccomp = (sc.path("seccompProfile").has("type") ? sc : podSc).path("seccompProfile").path("type")
                    .asString("");
            if (!seccomp.equals("RuntimeDefault") && !seccomp.equals("Localhost")) {
                out.add("seccompProfile (pod or container \"" + name
                        + "\" must set securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\")");
            }
        }
    }
}
