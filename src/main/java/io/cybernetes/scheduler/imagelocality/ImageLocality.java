package io.cybernetes.scheduler.imagelocality;

import io.cybernetes.scheduler.framework.CycleState;
import io.cybernetes.scheduler.framework.NodeInfo;
import io.cybernetes.scheduler.framework.Plugin;
import io.cybernetes.scheduler.framework.Status;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Prefers nodes that already have the pod's images, by their size, scaled by the share of
 * nodes that have them (so that an image on only a few nodes does not draw every pod to
 * them), between Kubernetes' thresholds of 23 MB and 1,000 MB per container.
 */
public final class ImageLocality implements Plugin.PreScore, Plugin.Score {

    public static final String NAME = "ImageLocality";
    static final long MIN_THRESHOLD = 23L * 1024 * 1024;
    static final long MAX_THRESHOLD_PER_CONTAINER = 1000L * 1024 * 1024;
    private static final String KEY = NAME + "/spread";

    @Override
    public String name() {
        return NAME;
    }

    /** Image names as a node reports them: an image without a tag or digest is {@code :latest}. */
    static String normalize(String image) {
        int slash = image.lastIndexOf('/');
        String last = image.substring(slash + 1);
        return last.contains(":") || last.contains("@") ? image : image + ":latest";
    }

    private static List<Container> containers(Pod pod) {
        return pod.getSpec() == null ? List.of() : Objects.requireNonNullElse(pod.getSpec().getContainers(), List.of());
    }

    /**
     * Prepares to count how many of the nodes have each of the pod's images — counted only
     * when a node that has one is scored, as most clusters' nodes report none.
     */
    @Override
    public Status preScore(CycleState state, Pod pod, List<NodeInfo> nodes) {
        state.write(KEY, new Spread(nodes));
        return Status.SUCCESS;
    }

    /** The share of nodes that have an image, counted once per cycle on first need. */
    private static final class Spread {
        private final List<NodeInfo> nodes;
        private final Map<String, Integer> nodesWithImage = new java.util.concurrent.ConcurrentHashMap<>();

        Spread(List<NodeInfo> nodes) {
            this.nodes = nodes;
        }

        double share(String image) {
            int have = nodesWithImage.computeIfAbsent(image, i -> {
                int n = 0;
                for (NodeInfo node : nodes) {
                    if (size(node, i) > 0) {
                        n++;
                    }
                }
                return n;
            });
            return (double) Math.max(1, have) / Math.max(1, nodes.size());
        }
    }

    private static long size(NodeInfo node, String image) {
        long s = node.imageSize(image);
        return s > 0 ? s : node.imageSize(image.endsWith(":latest") ? image.substring(0, image.length() - 7) : image);
    }

    @Override
    public long score(CycleState state, Pod pod, NodeInfo node) {
        if (!node.hasImages()) {
            return 0;
        }
        Spread spread = state.read(KEY, Spread.class).orElseGet(() -> new Spread(List.of(node)));
        long sum = 0;
        for (Container c : containers(pod)) {
            String image = normalize(c.getImage());
            long size = size(node, image);
            if (size > 0) {
                sum += (long) (size * spread.share(image));
            }
        }
        long max = MAX_THRESHOLD_PER_CONTAINER * Math.max(1, containers(pod).size());
        long clamped = Math.max(MIN_THRESHOLD, Math.min(max, sum));
        return MAX_SCORE * (clamped - MIN_THRESHOLD) / (max - MIN_THRESHOLD);
    }
}
