package io.cybernetes.node.shell;

import io.cybernetes.api.ApiException;
import io.cybernetes.client.ApiClient;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.DownwardAPIVolumeFile;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeProjection;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * What a simulated container sees of its filesystem: a few directories and the files the
 * kubelet writes ({@code /etc/hostname}, {@code /etc/hosts}, {@code /etc/resolv.conf}), and
 * the pod's volumes where the container mounts them — ConfigMaps and Secrets (every key, or
 * the items asked for, or one key at a {@code subPath}), the downward API's fields,
 * projected volumes, and the ServiceAccount's token, CA and namespace under
 * {@code /var/run/secrets/kubernetes.io/serviceaccount} unless the pod opts out. Contents are
 * read when first asked for (a token is requested only when someone reads it). Read-only.
 */
public final class ContainerFiles {

    public static final String SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";
    private static final List<String> BASE_DIRS = List.of("/", "/bin", "/dev", "/etc", "/home", "/proc", "/root",
            "/run", "/sbin", "/sys", "/tmp", "/usr", "/usr/bin", "/usr/local", "/var", "/var/log", "/var/run");

    private final Map<String, Supplier<String>> files = new LinkedHashMap<>();
    private final TreeSet<String> dirs = new TreeSet<>();
    private final Map<String, String> read = new java.util.concurrent.ConcurrentHashMap<>();

    private ContainerFiles() {
        BASE_DIRS.forEach(this::dir);
    }

    /** The files of the container of the pod, ConfigMaps, Secrets and tokens read through the node's client. */
    public static ContainerFiles of(Pod pod, Container c, ApiClient client) {
        ContainerFiles f = new ContainerFiles();
        String hostname = ContainerEnvironment.hostname(pod);
        String ns = pod.getMetadata().getNamespace();
        String ip = pod.getStatus() == null || pod.getStatus().getPodIP() == null ? "" : pod.getStatus().getPodIP();
        f.file("/etc/hostname", () -> hostname + "\n");
        f.file("/etc/hosts", () -> "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n"
                + "::1\tlocalhost ip6-localhost ip6-loopback\n" + (ip.isEmpty() ? "" : ip + "\t" + hostname + "\n"));
        f.file("/etc/resolv.conf", () -> "search " + ns + ".svc.cluster.local svc.cluster.local cluster.local\n"
                + "nameserver 10.96.0.10\noptions ndots:5\n");
        Map<String, Volume> volumes = new LinkedHashMap<>();
        for (Volume v : Objects.requireNonNullElse(pod.getSpec().getVolumes(), List.<Volume>of())) {
            volumes.put(v.getName(), v);
        }
        boolean serviceAccountMounted = false;
        for (VolumeMount m : Objects.requireNonNullElse(c.getVolumeMounts(), List.<VolumeMount>of())) {
            Volume v = volumes.get(m.getName());
            if (v == null) {
                continue;
            }
            serviceAccountMounted |= normalize(m.getMountPath()).equals(SERVICE_ACCOUNT_DIR);
            Map<String, Supplier<String>> content = f.contents(pod, c, v, client);
            String mount = normalize(m.getMountPath());
            if (m.getSubPath() != null && !m.getSubPath().isEmpty()) {
                Supplier<String> one = content.get(m.getSubPath());
                if (one != null) {
                    f.file(mount, one);
                } else {
                    f.dir(mount);
                }
                continue;
            }
            f.dir(mount);
            content.forEach((path, value) -> f.file(mount + "/" + path, value));
        }
        boolean automount = !Boolean.FALSE.equals(pod.getSpec().getAutomountServiceAccountToken());
        if (automount && !serviceAccountMounted) {
            String sa = Objects.requireNonNullElse(pod.getSpec().getServiceAccountName(), "default");
            f.dir(SERVICE_ACCOUNT_DIR);
            f.file(SERVICE_ACCOUNT_DIR + "/token", () -> token(client, pod, sa, List.of(), 3607));
            f.file(SERVICE_ACCOUNT_DIR + "/namespace", () -> ns);
            f.file(SERVICE_ACCOUNT_DIR + "/ca.crt", () -> rootCa(client, ns));
        }
        return f;
    }

    /** The files a volume holds, by their path inside it. */
    private Map<String, Supplier<String>> contents(Pod pod, Container c, Volume v, ApiClient client) {
        Map<String, Supplier<String>> out = new LinkedHashMap<>();
        String ns = pod.getMetadata().getNamespace();
        if (v.getConfigMap() != null) {
            configMapFiles(client, ns, v.getConfigMap().getName(), v.getConfigMap().getItems(), out);
        } else if (v.getSecret() != null) {
            secretFiles(client, ns, v.getSecret().getSecretName(), v.getSecret().getItems(), out);
        } else if (v.getDownwardAPI() != null) {
            downward(pod, c, v.getDownwardAPI().getItems(), out);
        } else if (v.getProjected() != null) {
            for (VolumeProjection p : Objects.requireNonNullElse(v.getProjected().getSources(),
                    List.<VolumeProjection>of())) {
                if (p.getConfigMap() != null) {
                    configMapFiles(client, ns, p.getConfigMap().getName(), p.getConfigMap().getItems(), out);
                } else if (p.getSecret() != null) {
                    secretFiles(client, ns, p.getSecret().getName(), p.getSecret().getItems(), out);
                } else if (p.getDownwardAPI() != null) {
                    downward(pod, c, p.getDownwardAPI().getItems(), out);
                } else if (p.getServiceAccountToken() != null) {
                    var t = p.getServiceAccountToken();
                    String sa = Objects.requireNonNullElse(pod.getSpec().getServiceAccountName(), "default");
                    List<String> audiences = t.getAudience() == null || t.getAudience().isEmpty() ? List.of()
                            : List.of(t.getAudience());
                    long seconds = t.getExpirationSeconds() == null ? 3600 : t.getExpirationSeconds();
                    out.put(t.getPath(), () -> token(client, pod, sa, audiences, seconds));
                }
            }
        }
        return out;
    }

    private static void configMapFiles(ApiClient client, String ns, String name, List<KeyToPath> items,
                                       Map<String, Supplier<String>> out) {
        Map<String, String> data = ContainerEnvironment.configMap(client, ns, name).map(ConfigMap::getData)
                .orElse(Map.of());
        keys(Objects.requireNonNullElse(data, Map.of()), items, out);
    }

    private static void secretFiles(ApiClient client, String ns, String name, List<KeyToPath> items,
                                    Map<String, Supplier<String>> out) {
        Map<String, String> data = new LinkedHashMap<>();
        ContainerEnvironment.secret(client, ns, name).map(Secret::getData).ifPresent(d ->
                d.forEach((k, v) -> data.put(k, ContainerEnvironment.decode(v))));
        keys(data, items, out);
    }

    /** Every key as a file of its name, or only the items, at their paths. */
    private static void keys(Map<String, String> data, List<KeyToPath> items, Map<String, Supplier<String>> out) {
        if (items == null || items.isEmpty()) {
            data.forEach((k, v) -> out.put(k, () -> v));
            return;
        }
        for (KeyToPath item : items) {
            String value = data.get(item.getKey());
            if (value != null) {
                out.put(item.getPath(), () -> value);
            }
        }
    }

    private static void downward(Pod pod, Container c, List<DownwardAPIVolumeFile> items,
                                 Map<String, Supplier<String>> out) {
        for (DownwardAPIVolumeFile item : Objects.requireNonNullElse(items, List.<DownwardAPIVolumeFile>of())) {
            if (item.getFieldRef() != null) {
                String path = item.getFieldRef().getFieldPath();
                out.put(item.getPath(), () -> ContainerEnvironment.field(pod, path));
            } else if (item.getResourceFieldRef() != null) {
                var r = item.getResourceFieldRef();
                out.put(item.getPath(), () -> ContainerEnvironment.resource(c, r.getResource(), r.getDivisor()));
            }
        }
    }

    private static String token(ApiClient client, Pod pod, String sa, List<String> audiences, long seconds) {
        try {
            return client.requestToken(pod.getMetadata().getNamespace(), sa, audiences, Math.max(600, seconds),
                    pod.getMetadata().getName(), pod.getMetadata().getUid());
        } catch (ApiException e) {
            return "";
        }
    }

    private static String rootCa(ApiClient client, String ns) {
        return ContainerEnvironment.configMap(client, ns, "kube-root-ca.crt").map(ConfigMap::getData)
                .map(d -> d.getOrDefault("ca.crt", "")).orElse("");
    }

    private void dir(String path) {
        String p = normalize(path);
        while (true) {
            dirs.add(p);
            if (p.equals("/")) {
                return;
            }
            p = parent(p);
        }
    }

    private void file(String path, Supplier<String> content) {
        String p = normalize(path);
        dir(parent(p));
        files.put(p, content);
    }

    /** An absolute path with {@code .}, {@code ..} and repeated slashes resolved. */
    public static String normalize(String path) {
        List<String> parts = new ArrayList<>();
        for (String s : path.split("/")) {
            if (s.isEmpty() || s.equals(".")) {
                continue;
            }
            if (s.equals("..")) {
                if (!parts.isEmpty()) {
                    parts.remove(parts.size() - 1);
                }
            } else {
                parts.add(s);
            }
        }
        return "/" + String.join("/", parts);
    }

    static String parent(String p) {
        int i = p.lastIndexOf('/');
        return i <= 0 ? "/" : p.substring(0, i);
    }

    public boolean isDirectory(String path) {
        return dirs.contains(normalize(path));
    }

    public boolean exists(String path) {
        String p = normalize(path);
        return dirs.contains(p) || files.containsKey(p);
    }

    /** The file's content; empty when it is no file. */
    public Optional<String> read(String path) {
        String p = normalize(path);
        Supplier<String> s = files.get(p);
        return s == null ? Optional.empty() : Optional.of(read.computeIfAbsent(p, k -> s.get()));
    }

    /** The names in a directory, sorted. */
    public List<String> list(String path) {
        String p = normalize(path);
        String prefix = p.equals("/") ? "/" : p + "/";
        TreeSet<String> names = new TreeSet<>();
        for (String d : dirs.tailSet(prefix, true)) {
            if (!d.startsWith(prefix)) {
                break;
            }
            String rest = d.substring(prefix.length());
            if (!rest.isEmpty() && !rest.contains("/")) {
                names.add(rest);
            }
        }
        for (String f : files.keySet()) {
            if (f.startsWith(prefix)) {
                String rest = f.substring(prefix.length());
                if (!rest.contains("/")) {
                    names.add(rest);
                }
            }
        }
        return List.copyOf(names);
    }

    /** The size in bytes a file's content takes (0 for a directory). */
    public long size(String path) {
        return read(path).map(s -> (long) s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length).orElse(0L);
    }
}
