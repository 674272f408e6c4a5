package io.cybernetes.node;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.Keys;
import io.cybernetes.client.RateLimitingQueue;
import io.cybernetes.client.ResourceEventHandler;
import io.cybernetes.client.SharedInformer;
import io.fabric8.kubernetes.api.model.ContainerImageBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One simulated node, as KWOK runs them: registers its Node (capacity, zone and region
 * labels, taints, images, Ready), renews its Lease in {@code kube-node-lease}, and runs
 * the pods bound to it (a watch with {@code spec.nodeName}): Pending → Running after the
 * start-up delay (start time, pod IP from the node's range, ready containers); pods that
 * do not restart and say how long they run ({@value #RUN_SECONDS}) end Succeeded; a pod
 * being deleted is let go (deleted with grace period 0). Heartbeats can be stopped and
 * resumed, as fault injection.
 */
public final class NodeAgent implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(NodeAgent.class);

    /** How long a pod with restartPolicy Never or OnFailure runs before it succeeds. */
    public static final String RUN_SECONDS = "cybernetes.io/run-seconds";
    public static final String LEASE_NAMESPACE = "kube-node-lease";

    /**
     * A node's shape. {@code podRange} is the first three octets of its pods' addresses
     * (for example {@code 10.244.1}); {@code address} its own.
     */
    public record Config(String name, String cpu, String memory, int pods, String zone, String region,
                         Map<String, String> labels, List<Taint> taints, List<String> images, String podRange,
                         String address, Duration startupDelay, Duration heartbeat) {
    }

    private final ApiClient client;
    private final Config config;
    private final Clock clock;
    private final SharedInformer<Pod> pods;
    private final RateLimitingQueue<String> queue;
    private final Map<String, Instant> firstSeen = new ConcurrentHashMap<>();
    private final Map<String, String> addresses = new ConcurrentHashMap<>();
    private final AtomicInteger nextAddress = new AtomicInteger(2);
    private volatile boolean heartbeating = true;
    private volatile boolean reportReady;
    private volatile boolean running;
    private Thread heartbeats;
    private Thread worker;

    public NodeAgent(ApiClient client, Config config, Clock clock) {
        this.client = client;
        this.config = config;
        this.clock = clock;
        this.pods = new SharedInformer<>("pods-on-" + config.name(),
                client.listerWatcher(Pod.class, null, "spec.nodeName=" + config.name()), Duration.ofMinutes(5));
        this.queue = RateLimitingQueue.withDefaultLimits("node-" + config.name());
        pods.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod obj) {
                queue.add(Keys.of(obj));
            }

            @Override
            public void onUpdate(Pod oldObj, Pod newObj) {
                queue.add(Keys.of(newObj));
            }

            @Override
            public void onDelete(Pod lastKnown, boolean finalStateUnknown) {
                firstSeen.remove(Keys.of(lastKnown));
                addresses.remove(Keys.of(lastKnown));
            }
        });
    }

    public String name() {
        return config.name();
    }

    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        register();
        renewLease();
        pods.start();
        heartbeats = daemon("node-heartbeat-" + config.name(), this::beat);
        worker = daemon("node-pods-" + config.name(), this::work);
    }

    private static Thread daemon(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    @Override
    public synchronized void close() {
        running = false;
        queue.shutDown();
        pods.stop();
        if (heartbeats != null) {
            heartbeats.interrupt();
        }
    }

    /** Fault injection: the node stops (or resumes) renewing its Lease, as if cut off; back, it reports Ready again. */
    public void heartbeats(boolean on) {
        if (on && !heartbeating) {
            reportReady = true;
        }
        heartbeating = on;
    }

    // ---- the Node and its Lease

    private String now() {
        return clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
    }

    Node desiredNode() {
        Map<String, String> labels = new LinkedHashMap<>(Objects.requireNonNullElse(config.labels(), Map.of()));
        labels.put("kubernetes.io/hostname", config.name());
        labels.put("kubernetes.io/os", "linux");
        labels.put("topology.kubernetes.io/zone", config.zone());
        labels.put("topology.kubernetes.io/region", config.region());
        Map<String, Quantity> capacity = Map.of("cpu", new Quantity(config.cpu()), "memory",
                new Quantity(config.memory()), "pods", new Quantity(Integer.toString(config.pods())));
        return new NodeBuilder().withNewMetadata().withName(config.name()).withLabels(labels).endMetadata()
                .withNewSpec().withTaints(config.taints()).endSpec()
                .withNewStatus().withCapacity(capacity).withAllocatable(capacity)
                .withConditions(ready("True", "KubeletReady", "kubelet is posting ready status"))
                .addNewAddress().withType("InternalIP").withAddress(config.address()).endAddress()
                .addNewAddress().withType("Hostname").withAddress(config.name()).endAddress()
                .withImages(config.images().stream().map(i -> new ContainerImageBuilder().withNames(i)
                        .withSizeBytes(100L * 1024 * 1024).build()).toList())
                .withNewNodeInfo().withKubeletVersion("v1.32.0-cybernetes").withOperatingSystem("linux")
                .withArchitecture("amd64").withContainerRuntimeVersion("simulated://1.0").endNodeInfo()
                .endStatus().build();
    }

    private NodeCondition ready(String status, String reason, String message) {
        return new NodeConditionBuilder().withType("Ready").withStatus(status).withReason(reason).withMessage(message)
                .withLastHeartbeatTime(now()).withLastTransitionTime(now()).build();
    }

    /** Creates the Node, or takes over an existing one, and reports it Ready. */
    private void register() {
        Node wanted = desiredNode();
        Node current;
        try {
            current = client.create(wanted);
        } catch (ApiException e) {
            if (e.code() != 409) {
                throw e;
            }
            current = client.get(Node.class, null, config.name()).orElseThrow(() -> e);
        }
        setStatus(current, wanted.getStatus().getConditions().get(0));
    }

    /** Writes the node's status with this Ready condition (re-reading on a conflict). */
    private void setStatus(Node base, NodeCondition readyCondition) {
        Node current = base;
        for (int attempt = 0; attempt < 5; attempt++) {
            Node changed = Json.convert(Json.toTree(current), Node.class);
            Node wanted = desiredNode();
            changed.setStatus(wanted.getStatus());
            List<NodeCondition> conditions = new ArrayList<>();
            conditions.add(readyCondition);
            changed.getStatus().setConditions(conditions);
            try {
                client.updateStatus(changed);
                return;
            } catch (ApiException e) {
                if (e.code() != 409) {
                    throw e;
                }
                current = client.get(Node.class, null, config.name()).orElseThrow(() -> e);
            }
        }
    }

    private void beat() {
        while (running) {
            try {
                Thread.sleep(config.heartbeat().toMillis());
                if (heartbeating) {
                    renewLease();
                    if (reportReady) {
                        reportReady = false;
                        setStatus(client.get(Node.class, null, config.name()).orElseThrow(),
                                ready("True", "KubeletReady", "kubelet is posting ready status"));
                    }
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                log.debug("node {}: heartbeat failed: {}", config.name(), e.toString());
            }
        }
    }

    private void renewLease() {
        ZonedDateTime now = ZonedDateTime.ofInstant(clock.instant(), ZoneOffset.UTC).truncatedTo(ChronoUnit.MICROS);
        Lease lease = client.get(Lease.class, LEASE_NAMESPACE, config.name()).orElse(null);
        if (lease == null) {
            try {
                client.create(new LeaseBuilder().withNewMetadata().withNamespace(LEASE_NAMESPACE)
                        .withName(config.name()).endMetadata().withNewSpec().withHolderIdentity(config.name())
                        .withLeaseDurationSeconds(40).withRenewTime(now).endSpec().build());
            } catch (ApiException e) {
                if (e.code() != 409) {
                    throw e;
                }
            }
            return;
        }
        lease.getSpec().setRenewTime(now);
        lease.getSpec().setHolderIdentity(config.name());
        client.update(lease);
    }

    // ---- the pods

    private void work() {
        while (running) {
            String key;
            try {
                key = queue.get(200, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                return;
            }
            if (key == null) {
                continue;
            }
            try {
                Duration again = sync(key);
                queue.forget(key);
                if (again != null) {
                    queue.addAfter(key, again);
                }
            } catch (RuntimeException e) {
                log.debug("node {}: {} failed, retrying: {}", config.name(), key, e.toString());
                queue.addRateLimited(key);
            } finally {
                queue.done(key);
            }
        }
    }

    /** Moves one pod a step along; returns when to look at it again, or null. */
    Duration sync(String key) {
        Pod pod = pods.indexer().get(key).orElse(null);
        if (pod == null || !config.name().equals(pod.getSpec().getNodeName())) {
            return null;
        }
        if (pod.getMetadata().getDeletionTimestamp() != null) {
            try {
                client.delete(Pod.class, pod.getMetadata().getNamespace(), pod.getMetadata().getName(), null, 0L);
            } catch (ApiException e) {
                if (e.code() != 404) {
                    throw e;
                }
            }
            return null;
        }
        String phase = pod.getStatus() == null || pod.getStatus().getPhase() == null ? "Pending"
                : pod.getStatus().getPhase();
        Instant now = clock.instant();
        switch (phase) {
            case "Pending" -> {
                Instant seen = firstSeen.computeIfAbsent(key, k -> now);
                Duration wait = Duration.between(now, seen.plus(config.startupDelay()));
                if (wait.compareTo(Duration.ZERO) > 0) {
                    return wait;
                }
                writeStatus(pod, "Running", true, now);
                return runTime(pod);
            }
            case "Running" -> {
                Duration runFor = runTime(pod);
                if (runFor == null) {
                    return null;
                }
                Instant started = pod.getStatus().getStartTime() == null ? now
                        : Instant.parse(pod.getStatus().getStartTime());
                Duration left = Duration.between(now, started.plus(runFor));
                if (left.compareTo(Duration.ZERO) > 0) {
                    return left;
                }
                writeStatus(pod, "Succeeded", false, now);
                return null;
            }
            default -> {
                return null;
            }
        }
    }

    /** How long the pod runs before it succeeds: only pods that do not restart and say so. */
    private static Duration runTime(Pod pod) {
        String policy = Objects.requireNonNullElse(pod.getSpec().getRestartPolicy(), "Always");
        String seconds = pod.getMetadata().getAnnotations() == null ? null
                : pod.getMetadata().getAnnotations().get(RUN_SECONDS);
        if ("Always".equals(policy) || seconds == null) {
            return null;
        }
        try {
            return Duration.ofMillis((long) (Double.parseDouble(seconds) * 1000));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private void writeStatus(Pod pod, String phase, boolean ready, Instant now) {
        String at = now.truncatedTo(ChronoUnit.SECONDS).toString();
        Pod changed = Json.convert(Json.toTree(pod), Pod.class);
        if (changed.getStatus() == null) {
            changed.setStatus(new io.fabric8.kubernetes.api.model.PodStatus());
        }
        var status = changed.getStatus();
        status.setPhase(phase);
        status.setHostIP(config.address());
        String key = Keys.of(pod);
        status.setPodIP(addresses.computeIfAbsent(key, k -> config.podRange() + "." + nextAddress.getAndIncrement()));
        if (status.getStartTime() == null) {
            status.setStartTime(at);
        }
        Map<String, PodCondition> conditions = new LinkedHashMap<>();
        for (PodCondition c : Objects.requireNonNullElse(status.getConditions(), List.<PodCondition>of())) {
            conditions.put(c.getType(), c);
        }
        for (String type : List.of("PodScheduled", "Initialized", "ContainersReady", "Ready")) {
            boolean value = type.equals("PodScheduled") || type.equals("Initialized") || ready;
            PodCondition old = conditions.get(type);
            if (old == null || !String.valueOf(value).equalsIgnoreCase(old.getStatus())) {
                conditions.put(type, new PodConditionBuilder().withType(type).withStatus(value ? "True" : "False")
                        .withReason(value ? null : "PodCompleted").withLastTransitionTime(at).build());
            }
        }
        status.setConditions(new ArrayList<>(conditions.values()));
        Map<String, ContainerStatus> byName = new HashMap<>();
        for (var c : pod.getSpec().getContainers()) {
            ContainerStatusBuilder b = new ContainerStatusBuilder().withName(c.getName()).withImage(c.getImage())
                    .withImageID("simulated://" + c.getImage()).withContainerID("simulated://" + key + "/" + c.getName())
                    .withReady(ready).withStarted(ready).withRestartCount(0);
            if (ready) {
                b.withNewState().withNewRunning().withStartedAt(at).endRunning().endState();
            } else {
                b.withNewState().withNewTerminated().withExitCode(0).withReason("Completed").withFinishedAt(at)
                        .endTerminated().endState();
            }
            byName.put(c.getName(), b.build());
        }
        status.setContainerStatuses(pod.getSpec().getContainers().stream().map(c -> byName.get(c.getName())).toList());
        client.updateStatus(changed);
    }
}
