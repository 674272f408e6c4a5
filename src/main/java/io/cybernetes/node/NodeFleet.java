package io.cybernetes.node;

import io.cybernetes.api.CertificateAuthority;
import io.cybernetes.api.X509Certificates;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.Keys;
import io.cybernetes.client.RateLimitingQueue;
import io.cybernetes.client.ResourceEventHandler;
import io.cybernetes.client.SharedInformer;
import io.fabric8.kubernetes.api.model.Pod;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Runs many simulated nodes with few threads, as KWOK does: one watch of the pods bound to
 * any node (through the fleet's client, an identity allowed to list all pods) — or, without
 * one, a watch for each node of only its pods ({@code spec.nodeName=<node>}, as its own
 * identity, as kubelets ask: the Node authorizer lets a node read no others) — one work
 * queue whose workers move each pod along
 * on its node's agent (writing as that node), and one scheduler of heartbeats, each node's
 * renewing its Lease at its own interval from a random offset so that a thousand nodes do
 * not beat at once; and, when asked, each node's kubelet endpoints ({@link KubeletServer}).
 */
public final class NodeFleet implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(NodeFleet.class);

    private final ApiClient watchClient;
    private final Clock clock;
    private final int workers;
    private final Map<String, NodeAgent> agents = new ConcurrentHashMap<>();
    /** The same agents in the order they were added: registered in that order. */
    private final List<NodeAgent> ordered = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** The watches of pods: one for the fleet ("") or one for each node, by the node's name. */
    private final Map<String, SharedInformer<Pod>> pods = new ConcurrentHashMap<>();
    private ResourceEventHandler<Pod> podHandler;
    /** The node each watched pod is bound to, by key: which watch has the pod now. */
    private final Map<String, String> nodeOfPod = new ConcurrentHashMap<>();
    private RateLimitingQueue<String> queue;
    private ScheduledExecutorService heartbeats;
    private final List<Thread> workerThreads = new ArrayList<>();
    private volatile boolean running;
    private CertificateAuthority kubeletCa;
    private int firstKubeletPort;
    private KubeletServer kubelets;
    private Duration logInterval = NodeAgent.DEFAULT_LOG_INTERVAL;
    private ResourceUsage.Defaults usage = ResourceUsage.Defaults.STANDARD;

    /**
     * @param watchClient the client that watches the pods bound to any node (an identity that may list all pods),
     *                    or null for each node to watch its own pods as itself
     * @param workers     how many threads move pods along
     */
    public NodeFleet(ApiClient watchClient, Clock clock, int workers) {
        this.watchClient = watchClient;
        this.clock = clock;
        this.workers = Math.max(1, workers);
    }

    /**
     * Serves each node's kubelet endpoints (logs, its pods) at the node's address over TLS,
     * with a serving certificate the CA signs, to the API server's client certificate only;
     * ports from {@code firstPort} on, one a node in the order added (0: any free ones). The
     * port is in the Node's {@code status.daemonEndpoints}. Before the fleet starts.
     */
    public synchronized void serveKubelets(CertificateAuthority ca, int firstPort) {
        this.kubeletCa = ca;
        this.firstKubeletPort = firstPort;
    }

    /** How often containers without a log script print a line. Before their nodes are added. */
    public synchronized void logInterval(Duration interval) {
        this.logInterval = interval;
    }

    /**
     * What containers use when no annotation says: this fraction of their requests, give or
     * take {@code noise} of it. Before their nodes are added.
     */
    public synchronized void usage(double fraction, double noise) {
        this.usage = new ResourceUsage.Defaults(fraction, noise);
    }

    /** Adds a node writing through its own client; registered at once when the fleet runs. */
    public synchronized NodeAgent add(ApiClient client, NodeAgent.Config config) {
        NodeAgent agent = new NodeAgent(client, config, clock);
        agent.logInterval(logInterval);
        agent.usage(usage.fraction(), usage.noise());
        agent.onExit(key -> {
            RateLimitingQueue<String> q = queue;
            if (q != null) {
                q.add(key);
            }
        });
        if (agents.putIfAbsent(config.name(), agent) != null) {
            throw new IllegalArgumentException("node " + config.name() + " is in the fleet already");
        }
        ordered.add(agent);
        if (running) {
            startAgent(agent);
            startWatch(agent);
        }
        return agent;
    }

    public Optional<NodeAgent> agent(String name) {
        return Optional.ofNullable(agents.get(name));
    }

    public List<NodeAgent> agents() {
        return List.copyOf(ordered);
    }

    /** The pod as the fleet's watch has it, if it is bound to one of its nodes. */
    public Optional<Pod> pod(String namespace, String name) {
        return watched(namespace + "/" + name).filter(p -> agents.containsKey(p.getSpec().getNodeName()));
    }

    /** The pod of that key in the watch of the node it is bound to (a stale copy on a node it left is not it). */
    private Optional<Pod> watched(String key) {
        String node = nodeOfPod.get(key);
        SharedInformer<Pod> informer = node == null ? null : watchOf(node);
        return informer == null ? Optional.empty() : informer.indexer().get(key);
    }

    /** The watch that has the node's pods: its own, or the fleet's. */
    private SharedInformer<Pod> watchOf(String node) {
        SharedInformer<Pod> own = pods.get(node);
        return own != null ? own : pods.get("");
    }

    /** Fault injection: the pod's container (its first when null) exits; false when the fleet does not run it. */
    public boolean crash(String namespace, String name, String container, int exitCode) {
        Optional<Pod> pod = pod(namespace, name);
        if (pod.isEmpty() || !agents.get(pod.get().getSpec().getNodeName()).crash(pod.get(), container, exitCode)) {
            return false;
        }
        queue.add(Keys.of(pod.get()));
        return true;
    }

    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        queue = RateLimitingQueue.withDefaultLimits("node-fleet");
        heartbeats = new ScheduledThreadPoolExecutor(2, r -> {
            Thread t = new Thread(r, "node-heartbeats");
            t.setDaemon(true);
            return t;
        });
        RateLimitingQueue<String> q = queue;
        podHandler = new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod p) {
                if (agents.containsKey(p.getSpec().getNodeName())) {
                    nodeOfPod.put(Keys.of(p), p.getSpec().getNodeName());
                    q.add(Keys.of(p));
                }
            }

            @Override
            public void onUpdate(Pod old, Pod p) {
                onAdd(p);
            }

            @Override
            public void onDelete(Pod p, boolean finalStateUnknown) {
                NodeAgent agent = agents.get(p.getSpec().getNodeName());
                if (agent != null) {
                    nodeOfPod.remove(Keys.of(p), p.getSpec().getNodeName());
                    agent.forget(Keys.of(p));
                }
            }
        };
        for (NodeAgent agent : ordered) {
            startAgent(agent);
        }
        if (watchClient != null) {
            watch("", watchClient, "spec.nodeName!=");
        } else {
            ordered.forEach(this::startWatch);
        }
        for (int i = 0; i < workers; i++) {
            Thread t = new Thread(() -> work(q), "node-pods-" + i);
            t.setDaemon(true);
            t.start();
            workerThreads.add(t);
        }
    }

    /** A node's own watch of its pods, when the fleet has no watch of them all. */
    private void startWatch(NodeAgent agent) {
        if (watchClient == null) {
            watch(agent.name(), agent.client(), "spec.nodeName=" + agent.name());
        }
    }

    private void watch(String owner, ApiClient client, String fieldSelector) {
        SharedInformer<Pod> informer = new SharedInformer<>(owner.isEmpty() ? "pods-on-nodes" : "pods-on-" + owner,
                client.listerWatcher(Pod.class, null, fieldSelector), Duration.ofMinutes(5));
        informer.addEventHandler(podHandler);
        pods.put(owner, informer);
        informer.start();
    }

    private void startAgent(NodeAgent agent) {
        if (kubeletCa != null) {
            serveKubelet(agent);
        }
        agent.register();
        long period = agent.config().heartbeat().toMillis();
        heartbeats.scheduleWithFixedDelay(() -> {
            try {
                agent.heartbeat();
            } catch (RuntimeException e) {
                log.debug("node {}: heartbeat failed: {}", agent.name(), e.toString());
            }
        }, ThreadLocalRandom.current().nextLong(period) + 1, period, TimeUnit.MILLISECONDS);
    }

    /** Listens for the node's kubelet endpoints; its port goes in the Node's status. */
    private void serveKubelet(NodeAgent agent) {
        String address = agent.config().address();
        String name = agent.name();
        try {
            if (kubelets == null) {
                kubelets = new KubeletServer();
            }
            javax.net.ssl.SSLContext tls = kubeletCa.tls(kubeletCa.issue("CN=system:node:" + name + ",O=system:nodes",
                    X509Certificates.Purpose.SERVER, List.of(address, name), Duration.ofDays(365)));
            int port = firstKubeletPort == 0 ? 0 : firstKubeletPort + ordered.indexOf(agent);
            agent.kubeletPort(kubelets.listen(address, port, tls, new KubeletEndpoints(agent,
                    (ns, pod) -> pod(ns, pod).filter(p -> name.equals(p.getSpec().getNodeName())),
                    () -> podsOn(name), clock)));
        } catch (java.io.IOException e) {
            throw new IllegalStateException("node " + name + ": cannot serve its kubelet endpoints at " + address
                    + ": " + e.getMessage(), e);
        }
    }

    private List<Pod> podsOn(String node) {
        SharedInformer<Pod> informer = watchOf(node);
        return informer == null ? List.of() : informer.indexer().list().stream()
                .filter(p -> node.equals(p.getSpec().getNodeName())).toList();
    }

    private void work(RateLimitingQueue<String> q) {
        while (running) {
            String key;
            try {
                key = q.get(200, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                return;
            }
            if (key == null) {
                continue;
            }
            try {
                Pod pod = watched(key).orElse(null);
                NodeAgent agent = pod == null ? null : agents.get(pod.getSpec().getNodeName());
                Duration again = agent == null ? null : agent.sync(pod);
                q.forget(key);
                if (again != null) {
                    q.addAfter(key, again);
                }
            } catch (RuntimeException e) {
                log.debug("node fleet: {} failed, retrying: {}", key, e.toString());
                q.addRateLimited(key);
            } finally {
                q.done(key);
            }
        }
    }

    @Override
    public synchronized void close() {
        if (!running) {
            return;
        }
        running = false;
        queue.shutDown();
        pods.values().forEach(SharedInformer::stop);
        pods.clear();
        nodeOfPod.clear();
        heartbeats.shutdownNow();
        if (kubelets != null) {
            kubelets.close();
            kubelets = null;
        }
        workerThreads.forEach(Thread::interrupt);
        workerThreads.clear();
    }
}
