package io.cybernetes.apiserver;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server-side apply scenarios through the real kubectl: {@code kubectl apply --server-side
 * [--force-conflicts] [--subresource=status]}, and client-side {@code kubectl apply} before
 * it moves an object to server-side apply (its own managedFields upgrade included).
 */
class ApplyScenariosKubectlTest extends ApplyScenariosSupport {

    @TempDir
    Path dir;

    @Override
    protected String namespace() {
        return "ssa-kubectl";
    }

    private Path file(String yaml) {
        try {
            return Files.writeString(dir.resolve(UUID.randomUUID() + ".yaml"), yaml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    protected String apply(String namespace, Target target, String yaml, String manager, boolean force) {
        assertThat(Path.of(Kubectl.PATH)).as("kubectl must be installed for these tests").isExecutable();
        List<String> args = new ArrayList<>(List.of("apply", "--server-side", "--field-manager=" + manager,
                "-n", namespace, "-f", file(yaml).toString()));
        if (force) {
            args.add("--force-conflicts");
        }
        if (target.subresource() != null) {
            args.add("--subresource=" + target.subresource());
        }
        Kubectl.Run run = new Kubectl(endpoints.adminKubeconfig(), dir).run(args.toArray(String[]::new));
        if (run.exit() == 0) {
            assertThat(run.out()).as(run.all()).contains("serverside-applied");
            return null;
        }
        return run.err();
    }

    @Override
    protected void applyClientSide(String namespace, Target target, String yaml) {
        Kubectl.Run run = new Kubectl(endpoints.adminKubeconfig(), dir).run("apply", "-n", namespace, "-f",
                file(yaml).toString());
        assertThat(run.exit()).as(run.all()).isZero();
    }

    @Test
    void diffServerSideShowsWhatAnApplyWouldChangeAndChangesNothing() {
        assertThat(apply(namespace(), new Target(CM, "diffed", null), cm("diffed", "{a: '1', b: '2'}"), "kubectl", false)).isNull();
        Path changed = file(cm("diffed", "{a: '1', b: '3'}"));
        Kubectl.Run diff = new Kubectl(endpoints.adminKubeconfig(), dir).run("diff", "--server-side", "-n",
                namespace(), "-f", changed.toString());
        assertThat(diff.exit()).as("1: there are differences; " + diff.all()).isEqualTo(1);
        // only b changes: not the resourceVersion, the generation or managedFields (a dry run stores nothing)
        assertThat(diff.out().lines().filter(l -> l.matches("^[-+] .*")).toList())
                .containsExactly("-  b: \"2\"", "+  b: \"3\"");
        assertThat(get(CM.replace("{ns}", namespace()) + "/diffed").text("data.b")).isEqualTo("2");
        Kubectl.Run same = new Kubectl(endpoints.adminKubeconfig(), dir).run("diff", "--server-side", "-n",
                namespace(), "-f", file(cm("diffed", "{a: '1', b: '2'}")).toString());
        assertThat(same.exit()).as(same.all()).isZero();
        assertThat(same.out()).isEmpty();
    }
}
