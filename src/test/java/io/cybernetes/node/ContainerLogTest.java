package io.cybernetes.node;

import io.cybernetes.controller.TestClock;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A simulated container's log as a timetable: the start line, the script's lines at their
 * times, the end line; bounded to the lines it keeps; the container's own script before
 * the pod's.
 */
class ContainerLogTest {

    private final TestClock clock = new TestClock();
    private final Instant start = clock.now;

    private List<String> read(ContainerLog log, ContainerLog.Query q) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        log.write(q, out, () -> true);
        String text = out.toString(StandardCharsets.UTF_8);
        return text.isEmpty() ? List.of() : List.of(text.split("\n"));
    }

    private static ContainerLog.Query all() {
        return new ContainerLog.Query(null, null, null, false, false);
    }

    @Test
    void aScriptsLinesComeAtTheirTimesAndTheEndIsTold() throws Exception {
        ContainerLog log = new ContainerLog(start, LogScript.parse("first\nsleep 2s\nsecond {pod}\nsleep 1s"),
                Map.of("container", "app", "image", "nginx", "pod", "web-0"), 0, 1000, clock);
        clock.advance(Duration.ofSeconds(1));
        assertThat(read(log, all())).containsExactly("[cybernetes] started container app (image nginx)", "first");
        clock.advance(Duration.ofSeconds(2));
        assertThat(read(log, all())).endsWith("first", "second web-0");
        log.end(3, clock.instant());
        assertThat(read(log, all())).last().isEqualTo("[cybernetes] container app exited with code 3");
        List<String> stamped = read(log, new ContainerLog.Query(null, 1L, null, true, false));
        assertThat(stamped).containsExactly("2026-11-29T12:00:03Z [cybernetes] container app exited with code 3");
    }

    @Test
    void theLogKeepsOnlyItsNewestLines() throws Exception {
        ContainerLog log = new ContainerLog(start, LogScript.parse("line {n}\nsleep 1s\nrepeat"),
                Map.of("container", "app"), 0, 5, clock);
        clock.advance(Duration.ofSeconds(100));
        List<String> kept = read(log, all());
        assertThat(kept).hasSize(5).doesNotContain("[cybernetes] started container app (image )");
        assertThat(kept.get(4)).matches("line \\d+");
        // a tail longer than what is kept gets what is kept
        assertThat(read(log, new ContainerLog.Query(null, 50L, null, false, false))).isEqualTo(kept);
    }

    @Test
    void aContainersOwnScriptComesBeforeThePodsAndWithoutEitherItPrintsEveryInterval() {
        Map<String, String> annotations = Map.of(LogScript.POD_ANNOTATION, "the pod's",
                LogScript.CONTAINER_ANNOTATION_PREFIX + "sidecar", "the sidecar's");
        Map<String, String> vars = Map.of("container", "c", "namespace", "ns", "pod", "p", "node", "n", "n", "1");
        assertThat(LogScript.of(annotations, "sidecar", Duration.ofSeconds(5)).text(0, vars)).isEqualTo("the sidecar's");
        assertThat(LogScript.of(annotations, "app", Duration.ofSeconds(5)).text(0, vars)).isEqualTo("the pod's");
        LogScript every = LogScript.of(Map.of(), "app", Duration.ofSeconds(5));
        assertThat(every.printedBy(Duration.ofSeconds(12).toNanos())).isEqualTo(2);
        assertThat(LogScript.duration("1.5s")).isEqualTo(1_500_000_000L);
        assertThat(LogScript.duration("250ms")).isEqualTo(250_000_000L);
        assertThat(LogScript.duration("soon")).isZero();
    }
}
