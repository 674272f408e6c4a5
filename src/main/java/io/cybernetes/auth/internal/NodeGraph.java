package io.cybernetes.auth.internal;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeProjection;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which node each pod is bound to and what the pod references (secrets, config maps,
 * volume claims, its ServiceAccount): the relationships the Node authorizer allows a
 * node to read through, as Kubernetes' node authorizer graph.
 */
final class NodeGraph {

    /** What one bound pod lets its node reach; names are in the pod's namespace. */
    record PodRefs(String node, String namespace, Set<String> secrets, Set<String> configMaps, Set<String> claims,
                   String serviceAccount) {
    }

    private final Map<String, PodRefs> pods = new ConcurrentHashMap<>();
    private final Map<String, Set<String>> podsByNode = new ConcurrentHashMap<>();

    void put(Pod pod) {
        String key = pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
        PodSpec spec = pod.getSpec();
        String node = spec == null ? null : spec.getNodeName();
        if (node == null || node.isEmpty()) {
            remove(pod);
            return;
        }
        PodRefs refs = refs(node, pod.getMetadata().getNamespace(), spec);
        PodRefs old = pods.put(key, refs);
        if (old != null && !old.node().equals(node)) {
            podsByNode.getOrDefault(old.node(), Set.of()).remove(key);
        }
        podsByNode.computeIfAbsent(node, k -> ConcurrentHashMap.newKeySet()).add(key);
    }

    void remove(Pod pod) {
        String key = pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
        PodRefs old = pods.remove(key);
        if (old != null) {
            podsByNode.getOrDefault(old.node(), Set.of()).remove(key);
        }
    }

    /** The node a pod is bound to, or null. */
    String nodeOf(String namespace, String name) {
        PodRefs r = pods.get(namespace + "/" + name);
        return r == null ? null : r.node();
    }

    /** Whether a pod bound to the node references the object ({@code resource}: secrets, configmaps, ...). */
    boolean references(String node, String resource, String namespace, String name) {
        for (String key : podsByNode.getOrDefault(node, Set.of())) {
            PodRefs r = pods.get(key);
            if (r == null || !r.namespace().equals(namespace)) {
                continue;
            }
            boolean hit = switch (resource) {
                case "secrets" -> r.secrets().contains(name);
                case "configmaps" -> r.configMaps().contains(name);
                case "persistentvolumeclaims" -> r.claims().contains(name);
                case "serviceaccounts" -> name.equals(r.serviceAccount());
                default -> false;
            };
            if (hit) {
                return true;
            }
        }
        return false;
    }

    private static PodRefs refs(String node, String namespace, PodSpec spec) {
        Set<String> secrets = new HashSet<>();
        Set<String> configMaps = new HashSet<>();
        Set<String> claims = new HashSet<>();
        for (LocalObjectReference ref : nonNull(spec.getImagePullSecrets())) {
            secrets.add(ref.getName());
        }
        for (Volume v : nonNull(spec.getVolumes())) {
            if (v.getSecret() != null) {
                secrets.add(v.getSecret().getSecretName());
            }
            if (v.getConfigMap() != null) {
                configMaps.add(v.getConfigMap().getName());
            }
            if (v.getPersistentVolumeClaim() != null) {
                claims.add(v.getPersistentVolumeClaim().getClaimName());
            }
            if (v.getProjected() != null) {
                for (VolumeProjection p : nonNull(v.getProjected().getSources())) {
                    if (p.getSecret() != null) {
                        secrets.add(p.getSecret().getName());
                    }
                    if (p.getConfigMap() != null) {
                        configMaps.add(p.getConfigMap().getName());
                    }
                }
            }
        }
        List<Container> containers = new ArrayList<>(nonNull(spec.getContainers()));
        containers.addAll(nonNull(spec.getInitContainers()));
        for (Container c : containers) {
            for (EnvVar e : nonNull(c.getEnv())) {
                if (e.getValueFrom() != null && e.getValueFrom().getSecretKeyRef() != null) {
                    secrets.add(e.getValueFrom().getSecretKeyRef().getName());
                }
                if (e.getValueFrom() != null && e.getValueFrom().getConfigMapKeyRef() != null) {
                    configMaps.add(e.getValueFrom().getConfigMapKeyRef().getName());
                }
            }
            for (EnvFromSource e : nonNull(c.getEnvFrom())) {
                if (e.getSecretRef() != null) {
                    secrets.add(e.getSecretRef().getName());
                }
                if (e.getConfigMapRef() != null) {
                    configMaps.add(e.getConfigMapRef().getName());
                }
            }
        }
        String sa = spec.getServiceAccountName() == null || spec.getServiceAccountName().isEmpty() ? "default"
                : spec.getServiceAccountName();
        return new PodRefs(node, namespace, Set.copyOf(secrets), Set.copyOf(configMaps), Set.copyOf(claims), sa);
    }

    private static <T> List<T> nonNull(List<T> l) {
        return l == null ? List.of() : l;
    }
}
