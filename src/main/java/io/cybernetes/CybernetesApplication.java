package io.cybernetes;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

@SpringBootApplication
public class CybernetesApplication {
    public static void main(String[] args) {
        SpringApplication.run(CybernetesApplication.class, args);
    }
}
