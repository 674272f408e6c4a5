package io.cybernetes.apiserver;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Kubernetes Python client (Debian's {@code python3-kubernetes} under
 * {@code /usr/bin/python3}, which .ci/run installs) drives the running application, over
 * HTTPS with the admin kubeconfig, in the ways its users do ({@code src/test/python}).
 * Fails, never skips, when the client is missing.
 */
class PythonClientCompatibilityTest extends SimulatedClusterSupport {

    static final String PYTHON = "/usr/bin/python3";

    @Test
    void thePythonClientsUsesWork() throws Exception {
        String ns = "python-client";
        assertThat(createNamespace(ns).code()).isIn(201, 409);
        Path report = Path.of("target", "python-client.txt");
        ProcessBuilder pb = new ProcessBuilder(List.of(PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                "src/test/python/test_python_client.py"));
        pb.environment().put("KUBECONFIG", endpoints.adminKubeconfig().toString());
        pb.environment().put("CYBERNETES_TEST_NAMESPACE", ns);
        pb.redirectErrorStream(true).redirectOutput(report.toFile());
        Process p = pb.start();
        boolean done = p.waitFor(5, TimeUnit.MINUTES);
        if (!done) {
            p.destroyForcibly();
        }
        String out = read(report);
        assertThat(done).as(out).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains(" passed").doesNotContain("skipped", "failed");
    }

    private static String read(Path p) throws IOException {
        return Files.exists(p) ? Files.readString(p, StandardCharsets.UTF_8) : "";
    }
}
