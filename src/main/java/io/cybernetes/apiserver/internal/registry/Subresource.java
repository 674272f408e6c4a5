package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ResourceType;

import java.util.List;

/**
 * A subresource of a kind as discovery reports it: its name, the kind its requests and
 * answers are ({@code status} and {@code finalize} the kind itself, {@code scale}
 * autoscaling/v1 Scale, {@code binding} a Binding, {@code token} a TokenRequest, a pod's
 * {@code log} the Pod, as kube-apiserver reports it) and its verbs.
 */
public record Subresource(String name, String group, String version, String kind, List<String> verbs) {

    private static final List<String> READ_WRITE = List.of("get", "patch", "update");

    public Subresource {
        verbs = List.copyOf(verbs);
    }

    /** The subresource of that name of a built-in kind. */
    public static Subresource of(ResourceType t, String name) {
        return switch (name) {
            case "scale" -> new Subresource(name, "autoscaling", "v1", "Scale", READ_WRITE);
            case "binding" -> new Subresource(name, "", "v1", "Binding", List.of("create"));
            case "eviction" -> new Subresource(name, "policy", "v1", "Eviction", List.of("create"));
            case "token" -> new Subresource(name, "authentication.k8s.io", "v1", "TokenRequest", List.of("create"));
            case "log" -> new Subresource(name, "", "v1", "Pod", List.of("get"));
            case "proxy" -> new Subresource(name, "", "v1", t.kind() + "ProxyOptions",
                    List.of("create", "delete", "get", "patch", "update"));
            case "ephemeralcontainers" -> new Subresource(name, "", "v1", "Pod", READ_WRITE);
            case "exec" -> new Subresource(name, "", "v1", "PodExecOptions", List.of("create", "get"));
            case "attach" -> new Subresource(name, "", "v1", "PodAttachOptions", List.of("create", "get"));
            case "portforward" -> new Subresource(name, "", "v1", "PodPortForwardOptions", List.of("create", "get"));
            case "finalize" -> new Subresource(name, t.group(), t.version(), t.kind(), List.of("update"));
            default -> new Subresource(name, t.group(), t.version(), t.kind(), READ_WRITE);
        };
    }

    /** Every subresource the kind declares, sorted by name as discovery lists them. */
    public static List<Subresource> of(ResourceType t) {
        return t.subresources().stream().sorted().map(name -> of(t, name)).toList();
    }
}
