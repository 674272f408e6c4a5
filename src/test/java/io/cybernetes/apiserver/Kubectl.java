package io.cybernetes.apiserver;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/** Runs the real kubectl ({@code /usr/bin/kubectl}) with a kubeconfig, its output kept in a directory of the test's. */
public final class Kubectl {

    public static final String PATH = "/usr/bin/kubectl";

    private final Path kubeconfig;
    private final Path dir;
    private final Map<String, String> env;

    /** What a kubectl run printed and how it ended. */
    public record Run(int exit, String out, String err) {
        public String all() {
            return out + err;
        }
    }

    public Kubectl(Path kubeconfig, Path dir) {
        this(kubeconfig, dir, Map.of());
    }

    private Kubectl(Path kubeconfig, Path dir, Map<String, String> env) {
        this.kubeconfig = kubeconfig;
        this.dir = dir;
        this.env = env;
    }

    /** This kubectl with one more variable in its environment (e.g. {@code KUBECTL_REMOTE_COMMAND_WEBSOCKETS}). */
    public Kubectl withEnv(String name, String value) {
        Map<String, String> more = new HashMap<>(env);
        more.put(name, value);
        return new Kubectl(kubeconfig, dir, more);
    }

    public Run run(String... args) {
        return runWithInput(null, args);
    }

    /** As {@link #run}, with {@code input} (when not null) on kubectl's standard input. */
    public Run runWithInput(String input, String... args) {
        List<String> cmd = new ArrayList<>(List.of(PATH, "--request-timeout=30s"));
        cmd.addAll(List.of(args));
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd);
            pb.environment().put("KUBECONFIG", kubeconfig.toString());
            pb.environment().put("HOME", dir.toString());
            pb.environment().putAll(env);
            Path out = dir.resolve("out-" + UUID.randomUUID());
            Path err = dir.resolve("err-" + UUID.randomUUID());
            pb.redirectOutput(out.toFile()).redirectError(err.toFile());
            if (input != null) {
                Path in = dir.resolve("in-" + UUID.randomUUID());
                Files.writeString(in, input);
                pb.redirectInput(in.toFile());
            }
            Process p = pb.start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("kubectl " + String.join(" ", args) + " did not finish");
            }
            return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
