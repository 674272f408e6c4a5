package io.cybernetes.node;

import io.cybernetes.apiserver.Kubectl;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code kubectl port-forward} to a pod's port on a free local one, and HTTP GETs through it. */
final class PortForwarding {

    private PortForwarding() {
    }

    /** The bodies of GETs of {@code paths} through a forward of the pod's {@code port}; kubectl ends afterwards. */
    static List<String> get(Path kubeconfig, Path home, Map<String, String> env, String namespace, String pod,
                            int port, String... paths) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(Kubectl.PATH, "-n", namespace, "port-forward", "pod/" + pod, ":" + port)
                .redirectErrorStream(true);
        pb.environment().put("KUBECONFIG", kubeconfig.toString());
        pb.environment().put("HOME", home.toString());
        pb.environment().putAll(env);
        Process p = pb.start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            Pattern forwarding = Pattern.compile("Forwarding from 127\\.0\\.0\\.1:(\\d+) -> " + port);
            int local = -1;
            StringBuilder seen = new StringBuilder();
            for (String line; local < 0 && (line = out.readLine()) != null; ) {
                seen.append(line).append('\n');
                Matcher m = forwarding.matcher(line);
                if (m.find()) {
                    local = Integer.parseInt(m.group(1));
                }
            }
            assertThat(local).as(seen.toString()).isPositive();
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
            List<String> bodies = new ArrayList<>();
            for (String path : paths) {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + local
                        + path)).timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).isEqualTo(200);
                bodies.add(r.body());
            }
            return bodies;
        } finally {
            p.destroy();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
