package io.cybernetes.store.internal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Acknowledged writes survive an abrupt stop (kill -9) of a process writing to an H2 file database. */
class H2DurabilityTest {

    @TempDir
    Path dir;

    @Test
    void everyAcknowledgedWriteIsThereAfterTheWriterIsKilled() throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("crash").toAbsolutePath() + ";WRITE_DELAY=0";
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                CrashWriter.class.getName(), url).redirectErrorStream(false).start();
        Map<String, Long> acked = new LinkedHashMap<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while (acked.size() < 400 && (line = r.readLine()) != null) {
                if (line.startsWith("ack ")) {
                    String[] p = line.split(" ");
                    acked.put(p[1], Long.parseLong(p[2]));
                }
            }
            child.destroyForcibly();
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(acked).hasSize(400);
        try (Connection c = DriverManager.getConnection(url, "sa", "");
             PreparedStatement ps = c.prepareStatement("SELECT mod_revision FROM kv_current WHERE obj_key = ?")) {
            for (Map.Entry<String, Long> e : acked.entrySet()) {
                ps.setString(1, e.getKey());
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).as("acknowledged write %s survived", e.getKey()).isTrue();
                    assertThat(rs.getLong(1)).isEqualTo(e.getValue());
                }
            }
        }
    }
}
