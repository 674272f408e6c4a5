package io.cybernetes.node.internal;

import io.cybernetes.api.CertificateAuthority;
import io.cybernetes.api.InProcessCredentials;
import io.cybernetes.api.LocalApi;
import io.cybernetes.client.ComponentLifecycle;
import io.cybernetes.node.NodeProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The simulated nodes inside the application, each under its own identity (judged by the
 * Node authorizer), so that after {@code ./mvnw spring-boot:run} a Deployment's pods
 * really run; and the fault-injection endpoint that drives them.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(NodeProperties.class)
class NodeAgentsConfiguration {

    @Bean
    SimulatedNodes simulatedNodes(LocalApi api, InProcessCredentials credentials, NodeProperties props,
                                  CertificateAuthority ca) {
        return new SimulatedNodes(api, credentials, props, ca);
    }

    /** After the API server is up (the controller manager and scheduler start a phase later). */
    @Bean
    SmartLifecycle nodeAgents(SimulatedNodes nodes) {
        return new ComponentLifecycle(true, nodes::start, nodes::stop, Integer.MAX_VALUE - 2);
    }
}
