package io.cybernetes.node.internal;

import io.cybernetes.api.InProcessCredentials;
import io.cybernetes.api.LocalApi;
import io.cybernetes.client.ApiClients;
import io.cybernetes.client.ComponentLifecycle;
import io.cybernetes.node.NodeAgent;
import io.cybernetes.node.NodeProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Clock;
import java.util.List;
import java.util.Map;

/**
 * The simulated nodes inside the application, each under its own identity
 * ({@code system:node:<name>} in {@code system:nodes}, judged by the Node authorizer), so
 * that after {@code ./mvnw spring-boot:run} a Deployment's pods really run.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(NodeProperties.class)
class NodeAgentsConfiguration {

    /**
     * After the API server is up (the controller manager and scheduler start a phase later);
     * fresh agents on every start, as a stopped agent does not start again.
     */
    @Bean
    SmartLifecycle nodeAgents(LocalApi api, InProcessCredentials credentials, NodeProperties props) {
        List<NodeAgent> agents = new java.util.concurrent.CopyOnWriteArrayList<>();
        Runnable start = () -> {
            for (int i = 1; i <= props.count(); i++) {
                String name = props.namePrefix() + i;
                String zone = props.zones().isEmpty() ? "zone-a" : props.zones().get((i - 1) % props.zones().size());
                NodeAgent agent = new NodeAgent(ApiClients.local(api, credentials.tokenFor("system:node:" + name,
                        List.of("system:nodes"))), new NodeAgent.Config(name, props.cpu(), props.memory(),
                        props.pods(), zone, props.region(), Map.of(), List.of(), props.images(), "10.244." + i,
                        "192.168.0." + (10 + i), props.startupDelay(), props.heartbeat()), Clock.systemUTC());
                agent.start();
                agents.add(agent);
            }
        };
        Runnable stop = () -> {
            agents.forEach(NodeAgent::close);
            agents.clear();
        };
        return new ComponentLifecycle(true, start, stop, Integer.MAX_VALUE - 2);
    }
}
