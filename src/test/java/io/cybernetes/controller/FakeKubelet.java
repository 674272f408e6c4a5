package io.cybernetes.controller;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.SharedInformer;
import io.cybernetes.client.SharedInformerFactory;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Stands in for the scheduler and the node agents in controller tests (until those
 * exist): registers nodes and renews their Leases every second, binds the pending pods
 * of one namespace round-robin to the nodes that are heartbeating and schedulable, makes bound
 * pods Running and Ready at an address of their own after a delay (pods that do not restart
 * always: Succeeded instead, their work done), and ends terminating pods (delete with grace
 * 0). All through the API, as the admin.
 */
public final class FakeKubelet implements Reconciler, AutoCloseable {

    /** A pod annotated so is bound but never started (a rollout that cannot progress). */
    public static final String NEVER_READY = "fake-kubelet/never-ready";

    private final ApiClient client;
    private final String namespace;
    private final List<String> nodes;
    private final Duration readyAfter;
    private final Set<String> silenced = ConcurrentHashMap.newKeySet();
    private final Map<String, Instant> boundAt = new ConcurrentHashMap<>();
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicInteger addresses = new AtomicInteger();
    private final SharedInformerFactory informers;
    private final SharedInformer<Pod> pods;
    private final Controller controller;
    private final Thread heartbeats;
    private final Duration heartbeat;
    private final Map<String, String> labels;
    private final SharedInformer<Node> nodeInformer;
    private volatile boolean running = true;

    public FakeKubelet(ApiClient client, String namespace, List<String> nodes, Duration readyAfter) {
        this(client, namespace, nodes, readyAfter, Duration.ofSeconds(1), 4, Map.of());
    }

    /**
     * With the lease renewal period (a kubelet's is 10 s), how many pods are handled at once,
     * and labels for the nodes (a zone of their own keeps the health of other tests' nodes out
     * of the node lifecycle controller's judgement of theirs).
     */
    public FakeKubelet(ApiClient client, String namespace, List<String> nodes, Duration readyAfter, Duration heartbeat,
                       int workers, Map<String, String> labels) {
        this.labels = Map.copyOf(labels);
        this.client = client;
        this.heartbeat = heartbeat;
        this.namespace = namespace;
        this.nodes = List.copyOf(nodes);
        this.readyAfter = readyAfter;
        for (String n : nodes) {
            register(n);
            heartbeat(n);
        }
        informers = new SharedInformerFactory(client, Duration.ofSeconds(30));
        pods = informers.informerFor(Pod.class);
        nodeInformer = informers.informerFor(Node.class);
        controller = new Controller("fake-kubelet-" + namespace, this, workers);
        pods.addEventHandler(controller.enqueueOnAddAndUpdate());
        informers.start();
        try {
            informers.waitForSync(Duration.ofSeconds(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        controller.start();
        heartbeats = new Thread(this::beat, "fake-kubelet-heartbeats");
        heartbeats.setDaemon(true);
        heartbeats.start();
    }

    /** Stops renewing the node's Lease (as if it lost its network); its pods are left as they are. */
    public void silence(String node) {
        silenced.add(node);
    }

    /** Renews the node's Lease again and reports it Ready, as an agent that is back. */
    public void resume(String node) {
        register(node);
        silenced.remove(node);
    }

    private void register(String node) {
        Node n = new NodeBuilder().withNewMetadata().withName(node).addToLabels(labels)
                .addToLabels("kubernetes.io/hostname", node).endMetadata().build();
        try {
            client.create(n);
        } catch (ApiException e) {
            if (e.code() != 409) {
                throw e;
            }
        }
        for (int attempt = 0; ; attempt++) {
            Node current = client.get(Node.class, null, node).orElseThrow();
            current.setStatus(new io.fabric8.kubernetes.api.model.NodeStatusBuilder().addNewCondition()
                    .withType("Ready").withStatus("True").withReason("KubeletReady").withLastHeartbeatTime(now())
                    .withLastTransitionTime(now()).endCondition().build());
            try {
                client.updateStatus(current);
                return;
            } catch (ApiException e) {
                if (e.code() != 409 || attempt >= 10) {
                    throw e;
                }
            }
        }
    }

    private void beat() {
        while (running) {
            for (String n : nodes) {
                if (!silenced.contains(n)) {
                    try {
                        heartbeat(n);
                    } catch (RuntimeException e) {
                        // the next beat tries again
                    }
                }
            }
            try {
                Thread.sleep(heartbeat.toMillis());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void heartbeat(String node) {
        ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.MICROS);
        Lease lease = client.get(Lease.class, "kube-node-lease", node).orElse(null);
        if (lease == null) {
            client.create(new LeaseBuilder().withNewMetadata().withNamespace("kube-node-lease").withName(node)
                    .endMetadata().withNewSpec().withHolderIdentity(node).withLeaseDurationSeconds(40)
                    .withRenewTime(now).endSpec().build());
            return;
        }
        lease.getSpec().setRenewTime(now);
        client.update(lease);
    }

    private static String now() {
        return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    }

    /** Nodes that heartbeat and carry no NoExecute/NoSchedule taint. */
    private List<String> healthy() {
        List<String> ok = new ArrayList<>();
        for (String n : nodes) {
            if (silenced.contains(n)) {
                continue;
            }
            Node node = nodeInformer.indexer().get(n).orElse(null);
            if (node != null && (node.getSpec() == null || (!Boolean.TRUE.equals(node.getSpec().getUnschedulable())
                    && (node.getSpec().getTaints() == null || node.getSpec().getTaints().isEmpty())))) {
                ok.add(n);
            }
        }
        return ok;
    }

    @Override
    public Result reconcile(Request request) {
        if (!namespace.equals(request.namespace())) {
            return Result.DONE;
        }
        Pod pod = pods.indexer().get(request.key()).orElse(null);
        if (pod == null) {
            boundAt.remove(request.key());
            return Result.DONE;
        }
        String node = pod.getSpec().getNodeName();
        if (node != null && silenced.contains(node)) {
            return Result.after(Duration.ofMillis(500)); // an unreachable node does nothing, not even end pods
        }
        if (pod.getMetadata().getDeletionTimestamp() != null) {
            try {
                client.delete(Pod.class, namespace, request.name(), null, 0L);
            } catch (ApiException e) {
                if (e.code() != 404) {
                    throw e;
                }
            }
            return Result.DONE;
        }
        if (node == null || node.isEmpty()) {
            List<String> ok = healthy();
            if (ok.isEmpty()) {
                return Result.after(Duration.ofMillis(500));
            }
            client.bind(namespace, request.name(), ok.get(Math.floorMod(next.getAndIncrement(), ok.size())));
            boundAt.put(request.key(), Instant.now());
            return Result.DONE;
        }
        boolean neverReady = pod.getMetadata().getAnnotations() != null
                && "true".equals(pod.getMetadata().getAnnotations().get(NEVER_READY));
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        if (neverReady || "Running".equals(phase) || "Succeeded".equals(phase) || "Failed".equals(phase)) {
            return Result.DONE;
        }
        Instant bound = boundAt.computeIfAbsent(request.key(), k -> Instant.now());
        Duration wait = Duration.between(Instant.now(), bound.plus(readyAfter));
        if (!wait.isNegative() && !wait.isZero()) {
            return Result.after(wait);
        }
        Pod running = Json.convert(Json.toTree(pod), Pod.class);
        List<PodCondition> conditions = new ArrayList<>();
        boolean finishes = !"Always".equals(java.util.Objects.requireNonNullElse(pod.getSpec().getRestartPolicy(),
                "Always"));
        for (String type : List.of("PodScheduled", "Initialized", "ContainersReady", "Ready")) {
            boolean up = !finishes || type.equals("PodScheduled") || type.equals("Initialized");
            conditions.add(new PodConditionBuilder().withType(type).withStatus(up ? "True" : "False")
                    .withLastTransitionTime(now()).build());
        }
        int n = addresses.incrementAndGet();
        running.getStatus().setPodIP("10." + (128 + (n >> 16)) + "." + ((n >> 8) & 255) + "." + (n & 255));
        running.getStatus().setPhase(finishes ? "Succeeded" : "Running");
        running.getStatus().setConditions(conditions);
        running.getStatus().setStartTime(now());
        running.getStatus().setContainerStatuses(running.getSpec().getContainers().stream()
                .map(c -> finishes
                        ? new ContainerStatusBuilder().withName(c.getName()).withImage(c.getImage()).withReady(false)
                        .withStarted(false).withRestartCount(0).withNewState().withNewTerminated().withExitCode(0)
                        .withReason("Completed").withStartedAt(now()).withFinishedAt(now()).endTerminated().endState()
                        .build()
                        : new ContainerStatusBuilder().withName(c.getName()).withImage(c.getImage()).withReady(true)
                        .withStarted(true).withRestartCount(0).withNewState().withNewRunning().withStartedAt(now())
                        .endRunning().endState().build()).toList());
        try {
            client.updateStatus(running);
        } catch (ApiException e) {
            if (e.code() != 404 && e.code() != 409) {
                throw e;
            }
            return e.code() == 409 ? Result.REQUEUE : Result.DONE;
        }
        return Result.DONE;
    }

    @Override
    public void close() {
        running = false;
        heartbeats.interrupt();
        controller.stop();
        informers.stop();
    }
}
