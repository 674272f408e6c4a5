package io.cybernetes.node.internal;

import io.cybernetes.api.CertificateAuthority;
import io.cybernetes.api.InProcessCredentials;
import io.cybernetes.api.LocalApi;
import io.cybernetes.client.ApiClients;
import io.cybernetes.node.NodeAgent;
import io.cybernetes.node.NodeFleet;
import io.cybernetes.node.NodeProperties;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The fleet of simulated nodes this process runs, each node as {@code system:node:<name>}
 * (in {@code system:nodes}) through the in-process client, serving its kubelet endpoints at
 * the configured address with a certificate from the cluster CA; a fresh fleet on every
 * start, as a stopped one does not start again.
 */
final class SimulatedNodes {

    private final LocalApi api;
    private final InProcessCredentials credentials;
    private final NodeProperties props;
    private final CertificateAuthority ca;
    private volatile NodeFleet fleet;

    /** Who watches the pods bound to any simulated node (the bootstrap policy lets it read pods; a node may not). */
    static final String SIMULATOR = "system:cybernetes:node-simulator";

    SimulatedNodes(LocalApi api, InProcessCredentials credentials, NodeProperties props, CertificateAuthority ca) {
        this.api = api;
        this.credentials = credentials;
        this.props = props;
        this.ca = ca;
    }

    Optional<NodeFleet> fleet() {
        return Optional.ofNullable(fleet);
    }

    synchronized void start() {
        if (props.count() <= 0) {
            return;
        }
        NodeFleet f = new NodeFleet(ApiClients.local(api, credentials.tokenFor(SIMULATOR, List.of()),
                io.cybernetes.api.Version.userAgent("node-simulator")), Clock.systemUTC(), 2);
        f.serveKubelets(ca, props.kubeletPort());
        f.logInterval(props.logInterval());
        f.usage(props.usageFraction(), props.usageNoise());
        for (int i = 1; i <= props.count(); i++) {
            String name = props.namePrefix() + i;
            String zone = props.zones().isEmpty() ? "zone-a" : props.zones().get((i - 1) % props.zones().size());
            NodeAgent agent = f.add(client(name), new NodeAgent.Config(name, props.cpu(), props.memory(), props.pods(), zone,
                    props.region(), Map.of(), List.of(), props.images(), "10.244." + i, props.address(),
                    props.startupDelay(), props.heartbeat()));
            agent.jobRunTime(props.jobRunTime());
        }
        f.start();
        fleet = f;
    }

    private io.cybernetes.client.ApiClient client(String node) {
        return ApiClients.local(api, credentials.tokenFor("system:node:" + node, List.of("system:nodes")),
                io.cybernetes.api.Version.userAgent("kubelet"));
    }

    synchronized void stop() {
        NodeFleet f = fleet;
        fleet = null;
        if (f != null) {
            f.close();
        }
    }
}
