package io.cybernetes.auth.internal;

import io.cybernetes.auth.UserInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class StaticTokensTest {

    @TempDir
    Path dir;

    @Test
    void linesAreReadAsKubeApiserverReadsThemAndChangesAreReloaded() throws Exception {
        Path file = dir.resolve("tokens.csv");
        Files.writeString(file, """
                # comment
                t1,alice,u1,"team-a,team-b"
                t2,bob,u2
                broken-line
                """);
        StaticTokens tokens = new StaticTokens("admin-secret", file);
        UserInfo alice = tokens.authenticate("t1").orElseThrow();
        assertThat(alice.name()).isEqualTo("alice");
        assertThat(alice.uid()).isEqualTo("u1");
        assertThat(alice.groups()).containsExactly("team-a", "team-b", UserInfo.AUTHENTICATED);
        assertThat(tokens.authenticate("t2").orElseThrow().groups()).containsExactly(UserInfo.AUTHENTICATED);
        assertThat(tokens.authenticate("broken-line")).isEmpty();
        assertThat(tokens.authenticate("admin-secret").orElseThrow().groups()).contains(UserInfo.MASTERS);

        Files.writeString(file, "t3,carol,u3,\"ops\"\n");
        Files.setLastModifiedTime(file, FileTime.from(Instant.now().plusSeconds(5)));
        tokens.reloadIfChanged();
        assertThat(tokens.authenticate("t1")).isEmpty();
        assertThat(tokens.authenticate("t3").orElseThrow().name()).isEqualTo("carol");

        Files.delete(file);
        tokens.reloadIfChanged();
        assertThat(tokens.authenticate("t3")).isEmpty();
        assertThat(tokens.authenticate("admin-secret")).isPresent();
    }

    @Test
    void quotedFieldsMayHoldCommasAndQuotes() {
        assertThat(StaticTokens.csv("a,\"b,c\",\"d\"\"e\"")).isEqualTo(List.of("a", "b,c", "d\"e"));
    }
}
