package io.cybernetes.controller.daemon;

import io.cybernetes.controller.ControllerHistory;
import io.cybernetes.controller.IntOrPercent;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.RollingUpdateDaemonSet;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A DaemonSet's rolling update, node by node, as Kubernetes' daemon controller rolls one
 * out. Without surge, old pods are deleted (the manage step then makes their replacement)
 * while no more than maxUnavailable nodes lack an available pod, an unavailable old pod
 * being replaced at once. With surge, a new pod is made beside an old one on up to
 * maxSurge nodes at a time (at once where the old one is unavailable), and the old one is
 * deleted when the new one is available.
 */
final class RollingUpdate {

    private RollingUpdate() {
    }

    static boolean allowsSurge(DaemonSet ds) {
        RollingUpdateDaemonSet ru = ru(ds);
        return ru != null && IntOrPercent.resolve(ru.getMaxSurge(), "0", 100, true) > 0;
    }

    private static RollingUpdateDaemonSet ru(DaemonSet ds) {
        return ds.getSpec().getUpdateStrategy() == null ? null : ds.getSpec().getUpdateStrategy().getRollingUpdate();
    }

    /** On one node: its one new pod and its one old pod (null when none); not {@code ok} when there are more. */
    private record Found(Pod newPod, Pod oldPod, boolean ok) {
    }

    private static Found find(List<Pod> pods, String hash) {
        Pod newPod = null;
        Pod oldPod = null;
        for (Pod p : pods) {
            if (p.getMetadata().getDeletionTimestamp() != null) {
                continue;
            }
            boolean isNew = hash.equals(Objects.requireNonNullElse(p.getMetadata().getLabels(), Map.<String, String>of())
                    .get(ControllerHistory.REVISION_LABEL));
            if (isNew) {
                if (newPod != null) {
                    return new Found(null, null, false);
                }
                newPod = p;
            } else {
                if (oldPod != null) {
                    return new Found(null, null, false);
                }
                oldPod = p;
            }
        }
        return new Found(newPod, oldPod, true);
    }

    static DaemonSetController.Plan plan(DaemonSet ds, List<DaemonSetController.NodeState> states, String hash,
                                         Instant now) {
        int minReady = Objects.requireNonNullElse(ds.getSpec().getMinReadySeconds(), 0);
        List<DaemonSetController.NodeState> running = states.stream().filter(s -> s.placement().shouldRun()).toList();
        int desired = running.size();
        RollingUpdateDaemonSet ru = ru(ds);
        IntOrString surgeField = ru == null ? null : ru.getMaxSurge();
        IntOrString unavailableField = ru == null ? null : ru.getMaxUnavailable();
        int maxSurge = IntOrPercent.resolve(surgeField, "0", desired, true);
        int maxUnavailable = IntOrPercent.resolve(unavailableField, "1", desired, true);
        if (maxSurge == 0 && maxUnavailable == 0) {
            maxUnavailable = 1; // a percentage that rounds to nothing still lets the update move
        }
        DaemonSetController.Plan plan = new DaemonSetController.Plan();
        if (maxSurge == 0) {
            int unavailable = 0;
            List<Pod> replacements = new ArrayList<>();
            List<Pod> candidates = new ArrayList<>();
            for (DaemonSetController.NodeState s : running) {
                Found f = find(s.pods(), hash);
                if (!f.ok() || (f.newPod() == null) == (f.oldPod() == null)) {
                    unavailable++; // the manage step makes or removes pods here
                } else if (f.newPod() != null) {
                    unavailable += DaemonPods.available(f.newPod(), minReady, now) ? 0 : 1;
                } else if (!DaemonPods.available(f.oldPod(), minReady, now)) {
                    replacements.add(f.oldPod());
                    unavailable++;
                } else if (unavailable < maxUnavailable) {
                    candidates.add(f.oldPod());
                }
            }
            int room = Math.min(Math.max(0, maxUnavailable - unavailable), candidates.size());
            plan.delete().addAll(replacements);
            plan.delete().addAll(candidates.subList(0, room));
            return plan;
        }
        int surging = 0;
        List<String> allowed = new ArrayList<>();
        List<String> candidates = new ArrayList<>();
        for (DaemonSetController.NodeState s : running) {
            Found f = find(s.pods(), hash);
            if (!f.ok()) {
                surging++;
                continue;
            }
            String node = s.node().getMetadata().getName();
            if (f.oldPod() == null) {
                continue; // nothing old here: the manage step sees to it
            }
            if (f.newPod() == null) {
                if (DaemonPods.available(f.oldPod(), minReady, now)) {
                    candidates.add(node);
                } else {
                    allowed.add(node);
                }
            } else if (!DaemonPods.available(f.newPod(), minReady, now)) {
                surging++;
            } else {
                plan.delete().add(f.oldPod());
            }
        }
        int room = Math.min(Math.max(0, maxSurge - surging), candidates.size());
        plan.create().addAll(allowed);
        plan.create().addAll(candidates.subList(0, room));
        return plan;
    }
}
