package io.cybernetes;

import io.cybernetes.node.NodeAgentCommand;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration;

/**
 * The control plane in one process; Spring Boot's default user store is left out, as
 * nobody logs in with a password. With {@code node-agent} as first argument, the process
 * is a node agent instead: simulated nodes talking to a control plane over HTTPS.
 */
@SpringBootApplication(exclude = UserDetailsServiceAutoConfiguration.class)
public class CybernetesApplication {
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("node-agent")) {
            NodeAgentCommand.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        SpringApplication.run(CybernetesApplication.class, args);
    }
}
