package io.cybernetes.node.shell;

import io.cybernetes.api.ApiException;
import io.cybernetes.client.ApiClient;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarSource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.Secret;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A container's environment as the kubelet makes it: {@code PATH} and {@code HOSTNAME},
 * the {@code kubernetes} Service's variables, then {@code envFrom} (ConfigMaps and Secrets,
 * with their prefix) and {@code env} in order — values, {@code $(VAR)} references to
 * variables defined before, ConfigMap and Secret keys, the downward API's fields and
 * resources. ConfigMaps and Secrets are read as the node (the Node authorizer lets it read
 * those of its pods); a missing optional one is left out.
 */
public final class ContainerEnvironment {

    private static final Pattern REFERENCE = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_.-]*)\\)|\\$\\$");

    private ContainerEnvironment() {
    }

    /** The environment, in the order its variables were defined. */
    public static Map<String, String> of(Pod pod, Container c, ApiClient client) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
        env.put("HOSTNAME", hostname(pod));
        env.put("KUBERNETES_SERVICE_HOST", "10.96.0.1");
        env.put("KUBERNETES_SERVICE_PORT", "443");
        env.put("KUBERNETES_SERVICE_PORT_HTTPS", "443");
        env.put("KUBERNETES_PORT", "tcp://10.96.0.1:443");
        env.put("KUBERNETES_PORT_443_TCP", "tcp://10.96.0.1:443");
        env.put("KUBERNETES_PORT_443_TCP_PROTO", "tcp");
        env.put("KUBERNETES_PORT_443_TCP_PORT", "443");
        env.put("KUBERNETES_PORT_443_TCP_ADDR", "10.96.0.1");
        String ns = pod.getMetadata().getNamespace();
        for (EnvFromSource from : Objects.requireNonNullElse(c.getEnvFrom(), List.<EnvFromSource>of())) {
            String prefix = Objects.requireNonNullElse(from.getPrefix(), "");
            if (from.getConfigMapRef() != null) {
                configMap(client, ns, from.getConfigMapRef().getName()).ifPresent(cm ->
                        Objects.requireNonNullElse(cm.getData(), Map.<String, String>of())
                                .forEach((k, v) -> env.put(prefix + k, v)));
            }
            if (from.getSecretRef() != null) {
                secret(client, ns, from.getSecretRef().getName()).ifPresent(s ->
                        Objects.requireNonNullElse(s.getData(), Map.<String, String>of())
                                .forEach((k, v) -> env.put(prefix + k, decode(v))));
            }
        }
        for (EnvVar v : Objects.requireNonNullElse(c.getEnv(), List.<EnvVar>of())) {
            String value = v.getValueFrom() != null ? from(pod, c, v.getValueFrom(), client)
                    : expand(Objects.requireNonNullElse(v.getValue(), ""), env);
            if (value != null) {
                env.put(v.getName(), value);
            }
        }
        return env;
    }

    /** The pod's host name: its {@code hostname} field, else its name. */
    public static String hostname(Pod pod) {
        String h = pod.getSpec().getHostname();
        return h == null || h.isEmpty() ? pod.getMetadata().getName() : h;
    }

    /** {@code $(VAR)} replaced by the variable defined before (left as it is when there is none), {@code $$} by $. */
    static String expand(String value, Map<String, String> env) {
        Matcher m = REFERENCE.matcher(value);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            String name = m.group(1);
            String replacement = name == null ? "$" : env.getOrDefault(name, m.group());
            m.appendReplacement(sb, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(sb);
        return sb.toString();
    }

    private static String from(Pod pod, Container c, EnvVarSource s, ApiClient client) {
        String ns = pod.getMetadata().getNamespace();
        if (s.getConfigMapKeyRef() != null) {
            return configMap(client, ns, s.getConfigMapKeyRef().getName())
                    .map(cm -> Objects.requireNonNullElse(cm.getData(), Map.<String, String>of())
                            .get(s.getConfigMapKeyRef().getKey())).orElse(null);
        }
        if (s.getSecretKeyRef() != null) {
            return secret(client, ns, s.getSecretKeyRef().getName())
                    .map(sec -> Objects.requireNonNullElse(sec.getData(), Map.<String, String>of())
                            .get(s.getSecretKeyRef().getKey())).map(ContainerEnvironment::decode).orElse(null);
        }
        if (s.getFieldRef() != null) {
            return field(pod, s.getFieldRef().getFieldPath());
        }
        if (s.getResourceFieldRef() != null) {
            return resource(c, s.getResourceFieldRef().getResource(), s.getResourceFieldRef().getDivisor());
        }
        return null;
    }

    /** A downward API field of the pod ({@code metadata.labels['app']}, {@code status.podIP} ...). */
    public static String field(Pod pod, String path) {
        var meta = pod.getMetadata();
        var status = pod.getStatus();
        Matcher keyed = Pattern.compile("metadata\\.(labels|annotations)\\['(.+)']").matcher(path);
        if (keyed.matches()) {
            Map<String, String> m = keyed.group(1).equals("labels") ? meta.getLabels() : meta.getAnnotations();
            return m == null ? "" : m.getOrDefault(keyed.group(2), "");
        }
        return switch (path) {
            case "metadata.name" -> meta.getName();
            case "metadata.namespace" -> meta.getNamespace();
            case "metadata.uid" -> meta.getUid();
            case "metadata.labels" -> lines(meta.getLabels());
            case "metadata.annotations" -> lines(meta.getAnnotations());
            case "spec.nodeName" -> Objects.requireNonNullElse(pod.getSpec().getNodeName(), "");
            case "spec.serviceAccountName" -> Objects.requireNonNullElse(pod.getSpec().getServiceAccountName(), "");
            case "status.hostIP", "status.hostIPs" -> status == null ? "" : Objects.requireNonNullElse(
                    status.getHostIP(), "");
            case "status.podIP", "status.podIPs" -> status == null ? "" : Objects.requireNonNullElse(
                    status.getPodIP(), "");
            default -> "";
        };
    }

    /** Labels or annotations as the downward API writes them: {@code key="value"} a line, sorted. */
    static String lines(Map<String, String> m) {
        StringBuilder sb = new StringBuilder();
        new java.util.TreeMap<>(Objects.requireNonNullElse(m, Map.of())).forEach((k, v) ->
                sb.append(k).append("=\"").append(v.replace("\\", "\\\\").replace("\"", "\\\"")
                        .replace("\n", "\\n")).append("\"\n"));
        return sb.toString().stripTrailing();
    }

    /** A resource of the container ({@code limits.cpu}, {@code requests.memory} ...) in units of the divisor, rounded up. */
    public static String resource(Container c, String resource, Quantity divisor) {
        ResourceRequirements r = c.getResources();
        String[] parts = resource.split("\\.", 2);
        if (parts.length != 2) {
            return "";
        }
        Map<String, Quantity> set = r == null ? null : parts[0].equals("limits") ? r.getLimits() : r.getRequests();
        Quantity q = set == null ? null : set.get(parts[1]);
        if (q == null && parts[0].equals("requests") && r != null && r.getLimits() != null) {
            q = r.getLimits().get(parts[1]); // a request defaults to the limit
        }
        if (q == null) {
            // no limit: the node's allocatable, as the kubelet fills it in (a simulated node has plenty)
            return parts[1].equals("cpu") ? "8" : parts[1].equals("memory") ? "34359738368" : "0";
        }
        BigDecimal amount = Quantity.getAmountInBytes(q);
        BigDecimal by = divisor == null ? BigDecimal.ONE : Quantity.getAmountInBytes(divisor);
        if (by.signum() == 0) {
            by = BigDecimal.ONE;
        }
        return amount.divide(by, 0, RoundingMode.CEILING).toPlainString();
    }

    static Optional<ConfigMap> configMap(ApiClient client, String ns, String name) {
        try {
            return client.get(ConfigMap.class, ns, name);
        } catch (ApiException e) {
            return Optional.empty();
        }
    }

    static Optional<Secret> secret(ApiClient client, String ns, String name) {
        try {
            return client.get(Secret.class, ns, name);
        } catch (ApiException e) {
            return Optional.empty();
        }
    }

    static String decode(String base64) {
        try {
            return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return "";
        }
    }
}
