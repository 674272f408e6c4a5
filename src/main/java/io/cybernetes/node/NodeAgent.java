package io.cybernetes.node;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.Keys;
import io.fabric8.kubernetes.api.model.Container;
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
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One simulated node, as KWOK runs them, writing through its own client (its own
 * identity): registers its Node (capacity, zone and region labels, taints, images, Ready),
 * renews its Lease in {@code kube-node-lease} at each heartbeat, and moves the pods bound to
 * it along: Pending → Running after the start-up delay (start time, pod IP from the node's
 * range, ready containers); pods that do not restart and say how long they run
 * ({@value #RUN_SECONDS}; a Job's pods run for the job run time unless they say) then exit
 * with the code {@value #EXIT_CODE} says (0 unless it does): Succeeded, or as a crash that
 * their restartPolicy restarts or ends Failed; a pod being deleted is let go (deleted with
 * grace period 0). A {@link NodeFleet} runs agents — their heartbeats and the pod watch.
 *
 * <p>Faults can be injected: heartbeats stopped and resumed (the node goes Unknown, as if
 * cut off), the node reporting NotReady (as with its container runtime down), and a
 * container crashing — restarted after the start-up delay, counted in
 * {@code restartCount}, unless the pod's restartPolicy says not to (then the pod Fails).
 */
public final class NodeAgent {

    /** How long a pod with restartPolicy Never or OnFailure runs before it succeeds. */
    public static final String RUN_SECONDS = "cybernetes.io/run-seconds";
    /** The exit code a pod's containers end with once they have run their time (default 0). */
    public static final String EXIT_CODE = "cybernetes.io/exit-code";
    /** How long a Job's pod runs when it does not say, unless the fleet sets another time. */
    public static final Duration DEFAULT_JOB_RUN_TIME = Duration.ofSeconds(5);
    /** How often a container without a log script prints a line, unless the fleet sets another interval. */
    public static final Duration DEFAULT_LOG_INTERVAL = Duration.ofSeconds(10);
    /** How many lines of each container run's log are kept (the newest). */
    static final long LOG_LINES_KEPT = 100_000;
    public static final String LEASE_NAMESPACE = "kube-node-lease";
    static final int LEASE_DURATION_SECONDS = 40;

    /**
     * A node's shape. {@code podRange} is the first three octets of its pods' addresses
     * (for example {@code 10.244.1}); {@code address} its own.
     */
    public record Config(String name, String cpu, String memory, int pods, String zone, String region,
                         Map<String, String> labels, List<Taint> taints, List<String> images, String podRange,
                         String address, Duration startupDelay, Duration heartbeat) {
    }

    /** What the node's faults are now. */
    public record Faults(boolean heartbeating, boolean ready) {
    }

    /** One container's runs on this node: how often it restarted, how it last ended, whether it is down now. */
    private record Run(int restarts, Instant startedAt, Integer lastExitCode, Instant lastFinishedAt,
                       Instant crashedAt) {
    }

    /** The version a simulated kubelet reports. */
    static final String VERSION = "v1.32.0-cybernetes";

    private final ApiClient client;
    private final Config config;
    /** A new one at every start of the agent, as a kubelet reports its host's boot. */
    private final String bootId = UUID.randomUUID().toString();
    private final Clock clock;
    private final Map<String, Instant> firstSeen = new ConcurrentHashMap<>();
    private final Map<String, String> addresses = new ConcurrentHashMap<>();
    private final Map<String, Map<String, Run>> runs = new ConcurrentHashMap<>();
    private final AtomicInteger nextAddress = new AtomicInteger(2);
    private volatile boolean heartbeating = true;
    private volatile boolean ready = true;
    private volatile boolean statusToWrite;
    private volatile Lease lease;
    private volatile Duration jobRunTime = DEFAULT_JOB_RUN_TIME;
    private final ContainerLogs logs;
    private final EphemeralRuns ephemerals = new EphemeralRuns();
    private final ResourceUsage usage = new ResourceUsage();
    private final PodVolumes volumes;
    /** How soon a pod whose volumes cannot be mounted is looked at again. */
    static final Duration MOUNT_RETRY = Duration.ofSeconds(1);
    private volatile int kubeletPort;

    public NodeAgent(ApiClient client, Config config, Clock clock) {
        this.client = client;
        this.config = config;
        this.clock = clock;
        this.logs = new ContainerLogs(config.name(), clock, DEFAULT_LOG_INTERVAL, LOG_LINES_KEPT);
        this.volumes = new PodVolumes(client);
    }

    /** The client it writes through, as this node. */
    ApiClient client() {
        return client;
    }

    public String name() {
        return config.name();
    }

    /** How long a Job's pods run when they do not say ({@value #RUN_SECONDS}). */
    public void jobRunTime(Duration d) {
        jobRunTime = d;
    }

    public Config config() {
        return config;
    }

    /** What its containers use when no annotation says ({@value ResourceUsage#POD_ANNOTATION}). */
    public void usage(double fraction, double noise) {
        usage.defaults(new ResourceUsage.Defaults(fraction, noise));
    }

    ResourceUsage usage() {
        return usage;
    }

    /** How often containers without a log script print a line. */
    public void logInterval(Duration d) {
        logs.interval(d);
    }

    /**
     * The container's log: its current run, or the one before it; empty when it has none (it
     * has not started). A container running since before this agent started gets a log from
     * its start time on (what it printed before went with the agent that ran it).
     */
    public java.util.Optional<ContainerLog> log(Pod pod, String container, boolean previous) {
        String key = Keys.of(pod);
        java.util.Optional<ContainerLog> log = logs.log(key, container, previous);
        if (log.isPresent() || previous || pod.getStatus() == null) {
            return log;
        }
        for (ContainerStatus s : Objects.requireNonNullElse(pod.getStatus().getContainerStatuses(),
                List.<ContainerStatus>of())) {
            if (s.getName().equals(container) && s.getState() != null && s.getState().getRunning() != null) {
                String since = s.getState().getRunning().getStartedAt();
                pod.getSpec().getContainers().stream().filter(c -> c.getName().equals(container)).findFirst()
                        .ifPresent(c -> logs.running(key, pod, c, Objects.requireNonNullElse(s.getRestartCount(), 0),
                                since == null ? clock.instant() : Instant.parse(since)));
            }
        }
        return logs.log(key, container, false);
    }

    /** The container of the pod by name (its ephemeral containers among them, as containers). */
    static java.util.Optional<Container> container(Pod pod, String name) {
        java.util.Optional<Container> c = pod.getSpec().getContainers().stream()
                .filter(x -> x.getName().equals(name)).findFirst();
        if (c.isPresent() || pod.getSpec().getEphemeralContainers() == null) {
            return c;
        }
        return pod.getSpec().getEphemeralContainers().stream().filter(e -> e.getName().equals(name)).findFirst()
                .map(e -> Json.convert(Json.toTree(e), Container.class));
    }

    /** Whether the pod's status says the container runs. */
    static boolean running(Pod pod, String name) {
        if (pod.getStatus() == null) {
            return false;
        }
        List<ContainerStatus> all = new ArrayList<>(Objects.requireNonNullElse(pod.getStatus().getContainerStatuses(),
                List.of()));
        all.addAll(Objects.requireNonNullElse(pod.getStatus().getEphemeralContainerStatuses(), List.of()));
        return all.stream().anyMatch(s -> s.getName().equals(name) && s.getState() != null
                && s.getState().getRunning() != null);
    }

    /** A shell in the container: its environment and files as the kubelet would give them, read as this node. */
    io.cybernetes.node.shell.Shell shell(Pod pod, Container c, boolean tty) {
        String process = c.getCommand() != null && !c.getCommand().isEmpty() ? String.join(" ", c.getCommand())
                : Objects.requireNonNullElse(c.getImage(), c.getName());
        return new io.cybernetes.node.shell.Shell(io.cybernetes.node.shell.ContainerEnvironment.of(pod, c, client),
                io.cybernetes.node.shell.ContainerFiles.of(pod, c, client), process, tty);
    }

    /**
     * Attaches to the container's own process: a container that keeps stdin open runs a
     * shell there, and when it exits the container exits with its code; any other prints its
     * output from now on until it ends or {@code open} says the client went. Returns the code.
     */
    int attach(Pod pod, Container c, java.io.InputStream in, java.io.OutputStream out, java.io.OutputStream err,
               boolean tty, java.util.function.BooleanSupplier open) throws java.io.IOException {
        if (Boolean.TRUE.equals(c.getStdin())) {
            int code = shell(pod, c, tty && Boolean.TRUE.equals(c.getTty())).exec(List.of(), in, out, err);
            if (crash(pod, c.getName(), code)) {
                pokeAfterExit.accept(Keys.of(pod));
            }
            return code;
        }
        java.util.Optional<ContainerLog> log = log(pod, c.getName(), false);
        if (log.isPresent()) {
            log.get().write(new ContainerLog.Query(clock.instant(), null, null, false, true), out, open);
        }
        return 0;
    }

    /** What the fleet does once a container exited here (looks at its pod again). */
    private volatile java.util.function.Consumer<String> pokeAfterExit = key -> { };

    void onExit(java.util.function.Consumer<String> poke) {
        pokeAfterExit = poke;
    }

    /** The port its kubelet endpoint serves on (at {@link Config#address()}), reported in the Node's status. */
    void kubeletPort(int port) {
        kubeletPort = port;
    }

    // ---- faults

    /** Stops (or resumes) renewing the Lease, as if cut off; back, the node reports its condition again. */
    public void heartbeats(boolean on) {
        if (on && !heartbeating) {
            statusToWrite = true;
        }
        heartbeating = on;
    }

    /** Reports the node Ready, or NotReady (KubeletNotReady) while its Lease is still renewed; written at once. */
    public void ready(boolean isReady) {
        ready = isReady;
        statusToWrite = true;
        if (heartbeating) {
            writeReadyCondition();
        }
    }

    public Faults faults() {
        return new Faults(heartbeating, ready);
    }

    /**
     * The container of the pod (its first when null) exits with the code. It is restarted
     * after the start-up delay when the pod's restartPolicy restarts it; otherwise the pod
     * ends, Failed (or Succeeded for exit code 0). False when the pod has no such container.
     */
    public boolean crash(Pod pod, String container, int exitCode) {
        List<Container> containers = pod.getSpec().getContainers();
        String name = container != null ? container : containers.isEmpty() ? null : containers.get(0).getName();
        if (name != null && EphemeralRuns.isEphemeral(pod, name)) {
            ephemerals.exited(Keys.of(pod), name, exitCode, clock.instant());
            return true;
        }
        if (name == null || containers.stream().noneMatch(c -> c.getName().equals(name))) {
            return false;
        }
        Instant now = clock.instant();
        runs.computeIfAbsent(Keys.of(pod), k -> new ConcurrentHashMap<>()).compute(name, (k, r) ->
                new Run(r == null ? 0 : r.restarts(), r == null ? now : r.startedAt(), exitCode, now, now));
        return true;
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
                .withConditions(readyCondition())
                .addNewAddress().withType("InternalIP").withAddress(config.address()).endAddress()
                .addNewAddress().withType("Hostname").withAddress(config.name()).endAddress()
                .withImages(config.images().stream().map(i -> new ContainerImageBuilder().withNames(i)
                        .withSizeBytes(100L * 1024 * 1024).build()).toList())
                .withNewNodeInfo().withKubeletVersion(VERSION).withKubeProxyVersion(VERSION)
                .withOperatingSystem("linux").withArchitecture("amd64").withContainerRuntimeVersion("simulated://1.0")
                .withOsImage("Cybernetes simulated node").withKernelVersion("6.1.0-cybernetes")
                .withMachineID(stableId("machine").replace("-", "")).withSystemUUID(stableId("system"))
                .withBootID(bootId).endNodeInfo()
                .withNewDaemonEndpoints().withNewKubeletEndpoint().withPort(kubeletPort).endKubeletEndpoint()
                .endDaemonEndpoints()
                .endStatus().build();
    }

    /** An id of this node that stays the same across starts (its machine id, its system UUID). */
    private String stableId(String what) {
        return UUID.nameUUIDFromBytes((what + ":" + config.name()).getBytes(StandardCharsets.UTF_8)).toString();
    }

    private NodeCondition readyCondition() {
        return new NodeConditionBuilder().withType("Ready").withStatus(ready ? "True" : "False")
                .withReason(ready ? "KubeletReady" : "KubeletNotReady")
                .withMessage(ready ? "kubelet is posting ready status"
                        : "container runtime network not ready: simulated fault")
                .withLastHeartbeatTime(now()).withLastTransitionTime(now()).build();
    }

    /** Creates the Node, or takes over an existing one, reports its condition and takes its Lease. */
    void register() {
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
        setStatus(current);
        renewLease();
    }

    /** Writes the node's status with its Ready condition as the faults have it (re-reading on a conflict). */
    private void setStatus(Node base) {
        Node current = base;
        for (int attempt = 0; attempt < 5; attempt++) {
            Node changed = Json.convert(Json.toTree(current), Node.class);
            changed.setStatus(desiredNode().getStatus());
            try {
                client.updateStatus(changed);
                statusToWrite = false;
                return;
            } catch (ApiException e) {
                if (e.code() != 409) {
                    throw e;
                }
                current = client.get(Node.class, null, config.name()).orElseThrow(() -> e);
            }
        }
    }

    private void writeReadyCondition() {
        client.get(Node.class, null, config.name()).ifPresent(this::setStatus);
    }

    /**
     * One heartbeat: the Lease renewed, and the Ready condition written if it is owed. A
     * renewal that failed (the API refusing writes, say) owes it: meanwhile the node lifecycle
     * controller may have found the node silent and written Ready Unknown, which a kubelet
     * corrects with its next status update.
     */
    void heartbeat() {
        if (!heartbeating) {
            return;
        }
        try {
            renewLease();
        } catch (RuntimeException e) {
            statusToWrite = true;
            throw e;
        }
        if (statusToWrite) {
            writeReadyCondition();
        }
    }

    /** Renews the Lease last written (one request), reading it again only when that one is stale or gone. */
    private void renewLease() {
        ZonedDateTime now = ZonedDateTime.ofInstant(clock.instant(), ZoneOffset.UTC).truncatedTo(ChronoUnit.MICROS);
        Lease known = lease;
        if (known != null) {
            Lease renewed = Json.convert(Json.toTree(known), Lease.class);
            renewed.getSpec().setRenewTime(now);
            try {
                lease = client.update(renewed);
                return;
            } catch (ApiException e) {
                lease = null;
                if (e.code() != 409 && e.code() != 404) {
                    throw e;
                }
            }
        }
        Lease current = client.get(Lease.class, LEASE_NAMESPACE, config.name()).orElse(null);
        if (current == null) {
            try {
                lease = client.create(new LeaseBuilder().withNewMetadata().withNamespace(LEASE_NAMESPACE)
                        .withName(config.name()).endMetadata().withNewSpec().withHolderIdentity(config.name())
                        .withLeaseDurationSeconds(LEASE_DURATION_SECONDS).withRenewTime(now).endSpec().build());
            } catch (ApiException e) {
                if (e.code() != 409) {
                    throw e;
                }
            }
            return;
        }
        current.getSpec().setRenewTime(now);
        current.getSpec().setHolderIdentity(config.name());
        lease = client.update(current);
    }

    // ---- the pods

    /** The pod is gone from the node: nothing is kept of it. */
    void forget(String key) {
        volumes.forget(key);
        logs.forget(key);
        ephemerals.forget(key);
        firstSeen.remove(key);
        addresses.remove(key);
        runs.remove(key);
    }

    /** Moves one pod bound to this node a step along; returns when to look at it again, or null. */
    Duration sync(Pod pod) {
        String key = Keys.of(pod);
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
                String unmounted = volumes.unmounted(pod);
                if (unmounted != null) {
                    return MOUNT_RETRY; // its containers wait for their volumes, as a kubelet's do
                }
                writeStatus(pod, "Running", now);
                return runTime(pod);
            }
            case "Running" -> {
                return running(pod, key, now);
            }
            default -> {
                return null;
            }
        }
    }

    private Duration running(Pod pod, String key, Instant now) {
        if (ephemerals.unreported(key, pod)) {
            writeStatus(pod, "Running", now); // a debug container added: it starts
        }
        Map<String, Run> containers = runs.getOrDefault(key, Map.of());
        String policy = Objects.requireNonNullElse(pod.getSpec().getRestartPolicy(), "Always");
        for (Map.Entry<String, Run> e : containers.entrySet()) {
            Run r = e.getValue();
            if (r.crashedAt() == null) {
                continue;
            }
            boolean restarts = "Always".equals(policy) || ("OnFailure".equals(policy) && r.lastExitCode() != 0);
            if (!restarts) {
                writeStatus(pod, r.lastExitCode() == 0 ? "Succeeded" : "Failed", now);
                return null;
            }
            Instant back = r.crashedAt().plus(config.startupDelay());
            if (now.isBefore(back)) {
                writeStatus(pod, "Running", now); // down, waiting to restart
                return Duration.between(now, back);
            }
            runs.get(key).put(e.getKey(), new Run(r.restarts() + 1, now, r.lastExitCode(), r.lastFinishedAt(), null));
            writeStatus(pod, "Running", now);
            return Duration.ZERO;
        }
        Duration runFor = runTime(pod);
        if (runFor == null) {
            return null;
        }
        Instant started = containers.values().stream().map(Run::startedAt).filter(Objects::nonNull)
                .max(Instant::compareTo).orElse(pod.getStatus().getStartTime() == null ? now
                        : Instant.parse(pod.getStatus().getStartTime()));
        Duration left = Duration.between(now, started.plus(runFor));
        if (left.compareTo(Duration.ZERO) > 0) {
            return left;
        }
        int code = exitCode(pod);
        if (code == 0) {
            writeStatus(pod, "Succeeded", now);
            return null;
        }
        for (Container c : pod.getSpec().getContainers()) {
            crash(pod, c.getName(), code);
        }
        return running(pod, key, now);
    }

    private static int exitCode(Pod pod) {
        String code = pod.getMetadata().getAnnotations() == null ? null
                : pod.getMetadata().getAnnotations().get(EXIT_CODE);
        try {
            return code == null ? 0 : Integer.parseInt(code.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /**
     * How long the pod runs before its containers exit: only pods that do not restart, for
     * as long as they say, or a Job's pod for the job run time.
     */
    private Duration runTime(Pod pod) {
        String policy = Objects.requireNonNullElse(pod.getSpec().getRestartPolicy(), "Always");
        String seconds = pod.getMetadata().getAnnotations() == null ? null
                : pod.getMetadata().getAnnotations().get(RUN_SECONDS);
        if ("Always".equals(policy)) {
            return null;
        }
        if (seconds == null) {
            return jobPod(pod) ? jobRunTime : null;
        }
        try {
            return Duration.ofMillis((long) (Double.parseDouble(seconds) * 1000));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static boolean jobPod(Pod pod) {
        return pod.getMetadata().getOwnerReferences() != null && pod.getMetadata().getOwnerReferences().stream()
                .anyMatch(r -> Boolean.TRUE.equals(r.getController()) && "Job".equals(r.getKind()));
    }

    /** When the container started running, as the pod's status already says. */
    private static java.util.Optional<String> runningSince(Pod pod, String container) {
        if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
            return java.util.Optional.empty();
        }
        return pod.getStatus().getContainerStatuses().stream().filter(s -> container.equals(s.getName()))
                .filter(s -> s.getState() != null && s.getState().getRunning() != null)
                .map(s -> s.getState().getRunning().getStartedAt()).filter(Objects::nonNull).findFirst();
    }

    /** Writes the pod's status in the phase, its containers as their runs have them; nothing when unchanged. */
    private void writeStatus(Pod pod, String phase, Instant now) {
        String at = now.truncatedTo(ChronoUnit.SECONDS).toString();
        String key = Keys.of(pod);
        Map<String, Run> containerRuns = runs.getOrDefault(key, Map.of());
        boolean ended = "Succeeded".equals(phase) || "Failed".equals(phase);
        List<ContainerStatus> statuses = new ArrayList<>();
        boolean allReady = !ended;
        for (Container c : pod.getSpec().getContainers()) {
            Run r = containerRuns.get(c.getName());
            String startedAt = r == null ? runningSince(pod, c.getName()).orElse(at)
                    : r.startedAt().truncatedTo(ChronoUnit.SECONDS).toString();
            ContainerStatusBuilder b = new ContainerStatusBuilder().withName(c.getName()).withImage(c.getImage())
                    .withImageID("simulated://" + c.getImage()).withContainerID("simulated://" + key + "/" + c.getName())
                    .withRestartCount(r == null ? 0 : r.restarts());
            if (r != null && r.lastExitCode() != null && (r.crashedAt() == null || ended)) {
                // a previous run that ended: kept as lastState, as the kubelet keeps it
                b.withNewLastState().withNewTerminated().withExitCode(r.lastExitCode())
                        .withReason(r.lastExitCode() == 0 ? "Completed" : "Error")
                        .withFinishedAt(r.lastFinishedAt().truncatedTo(ChronoUnit.SECONDS).toString())
                        .endTerminated().endLastState();
            }
            if (ended) {
                int exit = r != null && r.crashedAt() != null ? r.lastExitCode() : 0;
                logs.exited(key, c.getName(), exit, now);
                b.withReady(false).withStarted(false).withNewState().withNewTerminated().withExitCode(exit)
                        .withReason(exit == 0 ? "Completed" : "Error").withStartedAt(startedAt).withFinishedAt(at)
                        .endTerminated().endState();
            } else if (r != null && r.crashedAt() != null) {
                allReady = false;
                logs.exited(key, c.getName(), r.lastExitCode(), r.crashedAt());
                b.withReady(false).withStarted(false).withNewState().withNewWaiting().withReason("CrashLoopBackOff")
                        .withMessage("back-off restarting failed container " + c.getName()).endWaiting().endState()
                        .withNewLastState().withNewTerminated().withExitCode(r.lastExitCode()).withReason("Error")
                        .withStartedAt(startedAt)
                        .withFinishedAt(r.crashedAt().truncatedTo(ChronoUnit.SECONDS).toString())
                        .endTerminated().endLastState();
            } else {
                logs.running(key, pod, c, r == null ? 0 : r.restarts(), r == null ? Instant.parse(startedAt)
                        : r.startedAt());
                b.withReady(true).withStarted(true).withNewState().withNewRunning().withStartedAt(startedAt)
                        .endRunning().endState();
            }
            statuses.add(b.build());
        }
        Pod changed = Json.convert(Json.toTree(pod), Pod.class);
        if (changed.getStatus() == null) {
            changed.setStatus(new PodStatus());
        }
        PodStatus status = changed.getStatus();
        status.setPhase(phase);
        status.setHostIP(config.address());
        status.setPodIP(addresses.computeIfAbsent(key, k -> config.podRange() + "." + nextAddress.getAndIncrement()));
        if (status.getStartTime() == null) {
            status.setStartTime(at);
        }
        Map<String, PodCondition> conditions = new LinkedHashMap<>();
        for (PodCondition c : Objects.requireNonNullElse(status.getConditions(), List.<PodCondition>of())) {
            conditions.put(c.getType(), c);
        }
        for (String type : List.of("PodScheduled", "Initialized", "ContainersReady", "Ready")) {
            boolean value = type.equals("PodScheduled") || type.equals("Initialized") || allReady;
            PodCondition old = conditions.get(type);
            if (old == null || !String.valueOf(value).equalsIgnoreCase(old.getStatus())) {
                conditions.put(type, new PodConditionBuilder().withType(type).withStatus(value ? "True" : "False")
                        .withReason(value ? null : ended ? "PodCompleted" : "ContainersNotReady")
                        .withLastTransitionTime(at).build());
            }
        }
        status.setConditions(new ArrayList<>(conditions.values()));
        status.setContainerStatuses(statuses);
        List<ContainerStatus> ephemeral = ephemerals.statuses(key, pod, now, logs);
        status.setEphemeralContainerStatuses(ephemeral.isEmpty() ? null : ephemeral);
        if (Objects.equals(Json.toTree(status), Json.toTree(pod.getStatus()))) {
            return;
        }
        client.updateStatus(changed);
    }
}
