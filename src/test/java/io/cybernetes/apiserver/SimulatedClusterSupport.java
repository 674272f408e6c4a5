package io.cybernetes.apiserver;

import io.cybernetes.api.InProcessCredentials;
import io.cybernetes.api.LocalApi;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.ApiClients;
import io.cybernetes.node.NodeAgent;
import io.cybernetes.node.NodeFleet;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import org.junit.jupiter.api.AfterEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The application as {@code ./mvnw spring-boot:run} starts it — scheduler, controllers and
 * three simulated nodes over two zones (faster start-up and heartbeats) — shared by the
 * scheduling, node and fault tests. Tests that need nodes of their own start them in a
 * fleet of their own, labelled so that only their pods go there, and have them removed
 * afterwards.
 */
@TestPropertySource(properties = {
        "cybernetes.scheduler.enabled=true",
        "cybernetes.nodes.count=3",
        "cybernetes.nodes.startup-delay=100ms",
        "cybernetes.nodes.heartbeat=1s",
        "cybernetes.controllers.job-backoff=200ms",
        "cybernetes.apiserver.metrics.resolution=1s",
        "cybernetes.controllers.horizontal-pod-autoscaler.sync-period=1s",
        "cybernetes.auth.data-dir=./target/test-data/scheduling",
        "spring.datasource.url=jdbc:h2:mem:scheduling;DB_CLOSE_DELAY=-1"})
public abstract class SimulatedClusterSupport extends ApiTestSupport {

    @Autowired
    protected LocalApi api;

    @Autowired
    InProcessCredentials credentials;

    private final List<NodeFleet> fleets = new ArrayList<>();

    protected ApiClient adminClient() {
        return ApiClients.local(api, token());
    }

    /** A node of the test's own: given cpu, in a zone, with labels and taints; heartbeats every second. */
    protected static NodeAgent.Config node(String name, String cpu, String zone, Map<String, String> labels,
                                           List<Taint> taints) {
        int n = Math.floorMod(name.hashCode(), 200) + 20;
        return new NodeAgent.Config(name, cpu, "64Gi", 110, zone, "region-t", labels, taints, List.of(),
                "10.246." + n, "192.168.100." + n, Duration.ofMillis(100), Duration.ofSeconds(1));
    }

    private ApiClient nodeClient(String node) {
        return ApiClients.local(api, credentials.tokenFor("system:node:" + node, List.of("system:nodes")),
                io.cybernetes.api.Version.userAgent("kubelet"));
    }

    /** Starts the nodes in a fleet of their own (each writing as itself, system:node:name), stopped after the test. */
    protected NodeFleet startNodes(NodeAgent.Config... nodes) {
        NodeFleet fleet = new NodeFleet(null, Clock.systemUTC(), 2); // each node watches its own pods, as kubelets
        for (NodeAgent.Config c : nodes) {
            fleet.add(nodeClient(c.name()), c);
        }
        fleet.start();
        fleets.add(fleet);
        return fleet;
    }

    @AfterEach
    void removeTheTestsNodes() {
        for (NodeFleet fleet : fleets) {
            fleet.close();
            for (NodeAgent agent : fleet.agents()) {
                try {
                    adminClient().delete(Node.class, null, agent.name(), null);
                } catch (io.cybernetes.api.ApiException e) {
                    if (e.code() != 404) {
                        throw e;
                    }
                }
            }
        }
        fleets.clear();
    }
}
