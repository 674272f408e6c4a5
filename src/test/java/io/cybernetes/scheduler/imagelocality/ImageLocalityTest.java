package io.cybernetes.scheduler.imagelocality;

import io.cybernetes.scheduler.framework.CycleState;
import io.cybernetes.scheduler.framework.NodeInfo;
import io.fabric8.kubernetes.api.model.ContainerImageBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static io.cybernetes.scheduler.Fixtures.node;
import static io.cybernetes.scheduler.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

class ImageLocalityTest {

    static NodeInfo withImage(String name, String image, long megabytes) {
        return NodeInfo.of(node(name, "4", "8Gi", 110).editStatus().withImages(new ContainerImageBuilder()
                .withNames(image).withSizeBytes(megabytes * 1024 * 1024).build()).endStatus().build(), List.of());
    }

    @ParameterizedTest(name = "{0} → {1}")
    @CsvSource({"nginx, nginx:latest", "nginx:1.27, nginx:1.27", "registry:5000/app, registry:5000/app:latest",
            "app@sha256:abc, app@sha256:abc"})
    void imageNames(String image, String normalized) {
        assertThat(ImageLocality.normalize(image)).isEqualTo(normalized);
    }

    @Test
    void aNodeWithABigImageScoresHigherTheMoreNodesShareIt() {
        Pod pod = pod("p", null, null).editSpec().editFirstContainer().withImage("big:1").endContainer().endSpec()
                .build();
        NodeInfo has = withImage("has", "big:1", 800);
        NodeInfo lacks = NodeInfo.of(node("lacks"), List.of());
        ImageLocality plugin = new ImageLocality();
        CycleState state = new CycleState();
        plugin.preScore(state, pod, List.of(has, lacks));
        assertThat(plugin.score(state, pod, has)).isGreaterThan(plugin.score(state, pod, lacks));
        assertThat(plugin.score(state, pod, lacks)).isZero();
        CycleState everywhere = new CycleState();
        NodeInfo also = withImage("also", "big:1", 800);
        plugin.preScore(everywhere, pod, List.of(has, also));
        assertThat(plugin.score(everywhere, pod, has)).as("an image on few nodes draws less")
                .isGreaterThan(plugin.score(state, pod, has));
        NodeInfo small = withImage("small", "big:1", 10);
        plugin.preScore(state, pod, List.of(small));
        assertThat(plugin.score(state, pod, small)).as("below 23 MB counts as nothing").isZero();
    }
}
