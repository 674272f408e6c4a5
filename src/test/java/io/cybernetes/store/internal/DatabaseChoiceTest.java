package io.cybernetes.store.internal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The application started as the README says, from a directory holding the project's
 * {@code config/} (its application.yml among them), with the PostgreSQL profile and the
 * {@code CYBERNETES_DB_*} variables: it runs on PostgreSQL and says so, whatever the
 * external file holds; without the profile it is on embedded H2 and says that.
 */
@EnabledIfEnvironmentVariable(named = PostgresStoreTest.URL, matches = ".+")
class DatabaseChoiceTest {

    @TempDir
    Path dir;

    private String startAndReadStore(List<String> args, Matcher db) throws Exception {
        Path config = Files.createDirectories(dir.resolve("config"));
        try (Stream<Path> files = Files.list(Path.of("config"))) {
            for (Path f : files.toList()) {
                Files.copy(f, config.resolve(f.getFileName()));
            }
        }
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "io.cybernetes.CybernetesApplication",
                "--server.port=0", "--cybernetes.apiserver.https-port=0", "--cybernetes.apiserver.https-address=127.0.0.1",
                "--cybernetes.controllers.enabled=false", "--cybernetes.scheduler.enabled=false",
                "--cybernetes.nodes.count=0"));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().put("CYBERNETES_DB_HOST", db.group(1));
        pb.environment().put("CYBERNETES_DB_PORT", db.group(2) == null ? "5432" : db.group(2));
        pb.environment().put("CYBERNETES_DB_NAME", db.group(3));
        pb.environment().put("CYBERNETES_DB_USER", PostgresTestDatabase.user());
        Path log = dir.resolve("out-" + System.nanoTime() + ".log");
        pb.redirectOutput(log.toFile());
        Process p = pb.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (System.nanoTime() < deadline && p.isAlive()) {
                for (String line : Files.readAllLines(log)) {
                    if (line.contains("Store: ")) {
                        return line.substring(line.indexOf("Store: "));
                    }
                }
                Thread.sleep(200);
            }
            throw new AssertionError("no Store line in the start-up log:\n" + Files.readString(log));
        } finally {
            p.destroy();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    private static Matcher database() {
        Matcher m = Pattern.compile("jdbc:postgresql://([^:/]+)(?::(\\d+))?/([^?]+).*").matcher(PostgresTestDatabase.url());
        assertThat(m.matches()).as("a jdbc:postgresql://host:port/db URL").isTrue();
        return m;
    }

    @Test
    void thePostgresProfileWinsOverTheProjectsConfigDirectory() throws Exception {
        Matcher db = database();
        String store = startAndReadStore(List.of("--spring.profiles.active=postgres"), db);
        assertThat(store).startsWith("Store: PostgreSQL ").contains("jdbc:postgresql://" + db.group(1))
                .contains("/" + db.group(3));
    }

    @Test
    void withoutTheProfileItIsEmbeddedH2UnderTheDataDirectory() throws IOException, Exception {
        String store = startAndReadStore(List.of(), database());
        assertThat(store).startsWith("Store: H2 ").contains("jdbc:h2:retry:./data/cybernetes");
    }
}
