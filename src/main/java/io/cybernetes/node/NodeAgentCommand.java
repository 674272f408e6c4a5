package io.cybernetes.node;

import io.cybernetes.api.CertificateAuthority;
import io.cybernetes.api.X509Certificates;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.ApiClients;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The node agent as a process of its own ({@code java -jar cybernetes.jar node-agent ...}):
 * N simulated nodes talking to the API server over HTTPS, each with a client certificate of
 * its own ({@code CN=system:node:<name>}, {@code O=system:nodes}) issued here with the
 * cluster CA, so the Node authorizer judges each node as itself. Faults are typed on its
 * standard input ({@code help} lists them).
 */
public final class NodeAgentCommand {

    static final String USAGE = """
            usage: node-agent --server https://127.0.0.1:6443 [--pki ./data/pki] [--nodes 3] [--name-prefix sim-]
                              [--zones zone-a,zone-b] [--region region-1] [--cpu 8] [--memory 32Gi] [--pods 110]
                              [--startup-delay 1s] [--heartbeat 10s] [--workers 2]
                              [--node-ip 127.0.0.1] [--kubelet-port 10250] [--log-interval 10s]
              --pki holds the cluster CA (ca.crt, ca.key) that signs each node's client certificate
                    and the serving certificate of its kubelet endpoints;
              --node-ip is every node's address, where its kubelet endpoints listen, the first node
                    on --kubelet-port, the next one port up (0: any free ports).""";

    static final String FAULTS = """
            faults, one per line:
              stop-heartbeats NODE | resume-heartbeats NODE | not-ready NODE | ready NODE
              crash NAMESPACE/POD [CONTAINER] [EXIT-CODE]
              status | help""";

    /** The command line, parsed: {@code --name value} or {@code --name=value}. */
    record Options(URI server, Path pki, int nodes, String namePrefix, List<String> zones, String region, String cpu,
                   String memory, int pods, Duration startupDelay, Duration heartbeat, int workers, String nodeIp,
                   int kubeletPort, Duration logInterval) {

        static Options parse(String[] args) {
            Map<String, String> o = new LinkedHashMap<>();
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                if (!a.startsWith("--")) {
                    throw new IllegalArgumentException("unexpected argument " + a);
                }
                int eq = a.indexOf('=');
                if (eq > 0) {
                    o.put(a.substring(2, eq), a.substring(eq + 1));
                } else if (i + 1 < args.length) {
                    o.put(a.substring(2), args[++i]);
                } else {
                    throw new IllegalArgumentException(a + " needs a value");
                }
            }
            List<String> known = List.of("server", "pki", "nodes", "name-prefix", "zones", "region", "cpu", "memory",
                    "pods", "startup-delay", "heartbeat", "workers", "node-ip", "kubelet-port", "log-interval");
            for (String k : o.keySet()) {
                if (!known.contains(k)) {
                    throw new IllegalArgumentException("unknown option --" + k);
                }
            }
            String server = o.get("server");
            if (server == null) {
                throw new IllegalArgumentException("--server is required");
            }
            return new Options(URI.create(server), Path.of(o.getOrDefault("pki", "./data/pki")),
                    positive(o.getOrDefault("nodes", "3"), "--nodes"), o.getOrDefault("name-prefix", "sim-"),
                    Arrays.asList(o.getOrDefault("zones", "zone-a,zone-b").split(",")),
                    o.getOrDefault("region", "region-1"), o.getOrDefault("cpu", "8"), o.getOrDefault("memory", "32Gi"),
                    positive(o.getOrDefault("pods", "110"), "--pods"),
                    duration(o.getOrDefault("startup-delay", "1s")), duration(o.getOrDefault("heartbeat", "10s")),
                    positive(o.getOrDefault("workers", "2"), "--workers"), o.getOrDefault("node-ip", "127.0.0.1"),
                    port(o.getOrDefault("kubelet-port", "10250")), duration(o.getOrDefault("log-interval", "10s")));
        }

        private static int positive(String v, String name) {
            try {
                int n = Integer.parseInt(v);
                if (n > 0) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException(name + " must be a positive number, not " + v);
        }

        private static int port(String v) {
            try {
                int n = Integer.parseInt(v);
                if (n >= 0 && n <= 65535) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException("--kubelet-port must be a port number (0 for any), not " + v);
        }

        /** {@code 500ms}, {@code 10s}, {@code 1m}. */
        static Duration duration(String v) {
            try {
                if (v.endsWith("ms")) {
                    return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
                }
                if (v.endsWith("s")) {
                    return Duration.ofMillis((long) (Double.parseDouble(v.substring(0, v.length() - 1)) * 1000));
                }
                if (v.endsWith("m")) {
                    return Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1)));
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException("not a duration (500ms, 10s, 1m): " + v);
        }
    }

    private NodeAgentCommand() {
    }

    /** Runs the nodes until standard input ends or the process is stopped. */
    public static void main(String[] args) throws IOException, InterruptedException {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("node-agent: " + e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        NodeFleet fleet = start(options);
        Runtime.getRuntime().addShutdownHook(new Thread(fleet::close));
        System.out.println("node-agent: " + options.nodes() + " nodes (" + options.namePrefix() + "1.."
                + options.namePrefix() + options.nodes() + ") registered with " + options.server()
                + ", each as system:node:<name>");
        System.out.println(FAULTS);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            System.out.println(command(fleet, line.trim()));
        }
        Thread.currentThread().join(); // standard input closed: run until stopped
    }

    /** Issues each node its certificate and starts the fleet. */
    static NodeFleet start(Options o) {
        X509Certificate ca;
        PrivateKey caKey;
        try {
            ca = X509Certificates.readCertificate(o.pki().resolve("ca.crt"));
            caKey = X509Certificates.readPrivateKey(o.pki().resolve("ca.key"));
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot read the cluster CA under " + o.pki() + ": " + e.getMessage(), e);
        }
        // each node watches its own pods as itself, as a kubelet does: the Node authorizer lets it read no others
        NodeFleet fleet = new NodeFleet(null, Clock.systemUTC(), o.workers());
        fleet.serveKubelets(CertificateAuthority.of(ca, caKey), o.kubeletPort());
        fleet.logInterval(o.logInterval());
        for (int i = 1; i <= o.nodes(); i++) {
            String name = o.namePrefix() + i;
            ApiClient client = clientFor(o.server(), ca, caKey, name);
            fleet.add(client, new NodeAgent.Config(name, o.cpu(), o.memory(), o.pods(),
                    o.zones().get((i - 1) % o.zones().size()), o.region(), Map.of(), List.of(), List.of(),
                    "10." + (100 + i / 250) + "." + (i % 250) + "", o.nodeIp(),
                    o.startupDelay(), o.heartbeat()));
        }
        fleet.start();
        return fleet;
    }

    /** A client authenticating as the node, with an EC key and a certificate the cluster CA signs here. */
    static ApiClient clientFor(URI server, X509Certificate ca, PrivateKey caKey, String node) {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"));
            KeyPair kp = g.generateKeyPair();
            X509Certificate cert = X509Certificates.sign("CN=system:node:" + node + ",O=system:nodes", kp.getPublic(),
                    caKey, ca, Duration.ofDays(365), X509Certificates.Purpose.CLIENT, List.of());
            return ApiClients.https(server, ca, cert, kp.getPrivate());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot make a key for node " + node, e);
        }
    }

    /** One fault typed at the prompt; returns what to print. */
    static String command(NodeFleet fleet, String line) {
        if (line.isEmpty()) {
            return "";
        }
        String[] w = line.split("\\s+");
        try {
            switch (w[0]) {
                case "help" -> {
                    return FAULTS;
                }
                case "status" -> {
                    StringBuilder out = new StringBuilder();
                    for (NodeAgent a : fleet.agents()) {
                        NodeAgent.Faults f = a.faults();
                        if (!f.heartbeating() || !f.ready()) {
                            out.append(a.name()).append(": heartbeating=").append(f.heartbeating())
                                    .append(" ready=").append(f.ready()).append('\n');
                        }
                    }
                    return out.isEmpty() ? fleet.agents().size() + " nodes, no faults" : out.toString().trim();
                }
                case "stop-heartbeats", "resume-heartbeats", "not-ready", "ready" -> {
                    if (w.length != 2) {
                        return "usage: " + w[0] + " NODE";
                    }
                    Optional<NodeAgent> a = fleet.agent(w[1]);
                    if (a.isEmpty()) {
                        return "no node " + w[1] + " here";
                    }
                    switch (w[0]) {
                        case "stop-heartbeats" -> a.get().heartbeats(false);
                        case "resume-heartbeats" -> a.get().heartbeats(true);
                        case "not-ready" -> a.get().ready(false);
                        default -> a.get().ready(true);
                    }
                    return w[1] + ": " + a.get().faults();
                }
                case "crash" -> {
                    if (w.length < 2 || !w[1].contains("/")) {
                        return "usage: crash NAMESPACE/POD [CONTAINER] [EXIT-CODE]";
                    }
                    String[] pod = w[1].split("/", 2);
                    String container = w.length > 2 ? w[2] : null;
                    int exit = w.length > 3 ? Integer.parseInt(w[3]) : 1;
                    return fleet.crash(pod[0], pod[1], container, exit) ? "crashed " + w[1]
                            : "no such pod (or container) on these nodes: " + w[1];
                }
                default -> {
                    return "unknown command " + w[0] + "\n" + FAULTS;
                }
            }
        } catch (RuntimeException e) {
            return "failed: " + e.getMessage();
        }
    }

}
