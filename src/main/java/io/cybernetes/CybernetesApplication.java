package io.cybernetes;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration;

/** The control plane in one process; Spring Boot's default user store is left out, as nobody logs in with a password. */
@SpringBootApplication(exclude = UserDetailsServiceAutoConfiguration.class)
public class CybernetesApplication {
    public static void main(String[] args) {
        SpringApplication.run(CybernetesApplication.class, args);
    }
}
