package io.cybernetes.controller;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.LabelSelector;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.Indexer;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The revision history of a DaemonSet or a StatefulSet, as Kubernetes' controller history
 * keeps it in ControllerRevisions: each distinct template once, owned by its workload and
 * numbered in the order the templates became current. A template seen before (a rollback)
 * gets its old revision back with the next number rather than a new object; revisions no
 * live pod uses are deleted beyond the workload's revisionHistoryLimit.
 */
public final class ControllerHistory {

    /** The label a revision and the pods made from it carry. */
    public static final String REVISION_LABEL = "controller-revision-hash";

    private final ApiClient client;
    private final Indexer<ControllerRevision> revisions;

    public ControllerHistory(ApiClient client, Indexer<ControllerRevision> revisions) {
        this.client = client;
        this.revisions = revisions;
    }

    /**
     * The revision of a workload's pod template, as Kubernetes writes it: named
     * {@code OWNER-HASH}, labelled with the template's labels and {@code hashLabel: hash},
     * the owner's annotations, and as data the template as a patch that replaces it.
     */
    public static Wanted templateRevision(HasMetadata owner, PodTemplateSpec template, String hashLabel, String hash) {
        return new Wanted(owner.getMetadata().getName() + "-" + hash, templateLabels(template, hashLabel, hash),
                Objects.requireNonNullElse(owner.getMetadata().getAnnotations(), Map.of()), templatePatch(template));
    }

    /** {@code {"spec":{"template":{..., "$patch":"replace"}}}}: what a revision's data is, and what its hash is of. */
    public static ObjectNode templatePatch(PodTemplateSpec template) {
        ObjectNode t = Json.toTree(template).deepCopy();
        t.put("$patch", "replace");
        ObjectNode data = Json.object();
        data.putObject("spec").set("template", t);
        return data;
    }

    private static Map<String, String> templateLabels(PodTemplateSpec template, String hashLabel, String hash) {
        Map<String, String> labels = new LinkedHashMap<>(Objects.requireNonNullElse(
                template.getMetadata() == null ? null : template.getMetadata().getLabels(), Map.of()));
        labels.put(hashLabel, hash);
        return labels;
    }

    /** The current revision and the others, oldest first. */
    public record History(ControllerRevision current, List<ControllerRevision> old) {
    }

    /** What a revision to become current is: its name, labels, annotations and data. */
    public record Wanted(String name, Map<String, String> labels, Map<String, String> annotations, JsonNode data) {
    }

    /**
     * Raised when a revision of the wanted name exists with other data (a hash collision):
     * the workload counts one more collision and hashes again.
     */
    public static final class Collision extends Exception {
        public Collision(String name) {
            super("a ControllerRevision named " + name + " holds another template");
        }
    }

    /**
     * The workload's revisions after making {@code wanted} current: the revisions it controls
     * (orphans its selector matches adopted), the one whose data equals the wanted data
     * numbered last (created when there is none, its duplicates deleted).
     */
    public History sync(HasMetadata owner, LabelSelector selector, Wanted wanted) throws Collision {
        JsonNode data = canonical(wanted.data());
        List<ControllerRevision> owned = claim(owner, selector);
        owned.sort(Comparator.comparingLong((ControllerRevision r) -> Objects.requireNonNullElse(r.getRevision(), 0L))
                .thenComparing(r -> r.getMetadata().getName()));
        long max = owned.stream().mapToLong(r -> Objects.requireNonNullElse(r.getRevision(), 0L)).max().orElse(0);
        List<ControllerRevision> equal = owned.stream().filter(r -> data.equals(canonical(r.getData()))).toList();
        ControllerRevision current;
        if (equal.isEmpty()) {
            current = create(owner, wanted, max + 1);
        } else {
            current = equal.get(equal.size() - 1);
            for (ControllerRevision duplicate : equal.subList(0, equal.size() - 1)) {
                delete(duplicate);
            }
            if (current.getRevision() == null || current.getRevision() < max) {
                current = bump(current, max + 1);
            }
        }
        List<ControllerRevision> old = new ArrayList<>();
        for (ControllerRevision r : owned) {
            if (!r.getMetadata().getName().equals(current.getMetadata().getName()) && !equal.contains(r)) {
                old.add(r);
            }
        }
        return new History(current, old);
    }

    /**
     * Deletes the oldest revisions beyond {@code limit} that no live pod was made from
     * ({@code live}: the revision names or hashes the pods carry).
     */
    public void truncate(History history, Set<String> live, int limit) {
        List<ControllerRevision> unused = history.old().stream()
                .filter(r -> !live.contains(r.getMetadata().getName())
                        && !live.contains(labels(r).getOrDefault(REVISION_LABEL, "")))
                .toList();
        for (int i = 0; i < unused.size() - Math.max(0, limit); i++) {
            delete(unused.get(i));
        }
    }

    private List<ControllerRevision> claim(HasMetadata owner, LabelSelector selector) {
        String uid = owner.getMetadata().getUid();
        List<ControllerRevision> out = new ArrayList<>();
        for (ControllerRevision r : revisions.byIndex(Indexer.NAMESPACE_INDEX, owner.getMetadata().getNamespace())) {
            OwnerReference ref = OwnerReferences.controllerOf(r);
            if (ref != null) {
                if (ref.getUid().equals(uid)) {
                    out.add(r);
                }
            } else if (!selector.isEmpty() && selector.matches(labels(r)) && owner.getMetadata().getDeletionTimestamp() == null
                    && r.getMetadata().getDeletionTimestamp() == null) {
                out.add(client.patch(ControllerRevision.class, r.getMetadata().getNamespace(), r.getMetadata().getName(),
                        "{\"metadata\":{\"uid\":\"" + r.getMetadata().getUid() + "\",\"ownerReferences\":["
                                + Json.write(Json.toTree(OwnerReferences.controlledBy(owner))) + "]}}"));
            }
        }
        return out;
    }

    private ControllerRevision create(HasMetadata owner, Wanted wanted, long revision) throws Collision {
        ControllerRevision r = new ControllerRevision();
        r.setMetadata(new ObjectMetaBuilder().withName(wanted.name()).withNamespace(owner.getMetadata().getNamespace())
                .withLabels(wanted.labels()).withAnnotations(wanted.annotations().isEmpty() ? null : wanted.annotations())
                .withOwnerReferences(OwnerReferences.controlledBy(owner)).build());
        r.setData(Json.convert(wanted.data(), Object.class));
        r.setRevision(revision);
        try {
            return client.create(r);
        } catch (ApiException e) {
            if (e.code() != 409) {
                throw e;
            }
            ControllerRevision existing = client.get(ControllerRevision.class, owner.getMetadata().getNamespace(),
                    wanted.name()).orElseThrow(() -> e);
            OwnerReference ref = OwnerReferences.controllerOf(existing);
            if (ref != null && ref.getUid().equals(owner.getMetadata().getUid())
                    && canonical(wanted.data()).equals(canonical(existing.getData()))) {
                return existing.getRevision() != null && existing.getRevision() >= revision ? existing
                        : bump(existing, revision); // ours, not yet in the cache
            }
            throw new Collision(wanted.name());
        }
    }

    private ControllerRevision bump(ControllerRevision r, long revision) {
        return client.patch(ControllerRevision.class, r.getMetadata().getNamespace(), r.getMetadata().getName(),
                "{\"revision\":" + revision + "}");
    }

    private void delete(ControllerRevision r) {
        try {
            client.delete(ControllerRevision.class, r.getMetadata().getNamespace(), r.getMetadata().getName(), null);
        } catch (ApiException e) {
            if (e.code() != 404) {
                throw e;
            }
        }
    }

    /** The data as it reads back from JSON (a model's long and a parsed int are the same number). */
    private static JsonNode canonical(Object data) {
        return Json.MAPPER.readTree(Json.MAPPER.writeValueAsString(data));
    }

    private static Map<String, String> labels(HasMetadata o) {
        return Objects.requireNonNullElse(o.getMetadata().getLabels(), Map.of());
    }
}
