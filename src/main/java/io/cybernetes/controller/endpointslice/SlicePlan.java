package io.cybernetes.controller.endpointslice;

import io.cybernetes.api.Json;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Which slice writes bring a Service's EndpointSlices to the endpoints it should have, as
 * Kubernetes' slice reconciler plans them, with as few writes as it can: endpoints are
 * grouped by the ports they serve (one set of slices per port mapping); a slice keeps the
 * endpoints that are still wanted (updated in place), loses those that are not, and is
 * deleted once empty; new endpoints go first into slices being written anyway, then into
 * the fullest unchanged slice that takes them all, and only then into new slices of at most
 * {@code max}. A Service with no endpoints keeps one empty placeholder slice.
 */
final class SlicePlan {

    /** The endpoints of one port mapping, by address. */
    record Mapping(List<EndpointPort> ports, Map<String, Endpoint> endpoints) {
    }

    /** New slices (ports and endpoints only), slices changed (copies) and slices to delete. */
    record Writes(List<EndpointSlice> create, List<EndpointSlice> update, List<EndpointSlice> delete) {

        boolean isEmpty() {
            return create.isEmpty() && update.isEmpty() && delete.isEmpty();
        }
    }

    private SlicePlan() {
    }

    /** What identifies a port mapping: its ports, whatever their order. */
    static String key(List<EndpointPort> ports) {
        List<String> parts = new ArrayList<>();
        for (EndpointPort p : Objects.requireNonNullElse(ports, List.<EndpointPort>of())) {
            parts.add(Objects.requireNonNullElse(p.getName(), "") + "/" + p.getPort() + "/"
                    + Objects.requireNonNullElse(p.getProtocol(), "TCP") + "/"
                    + Objects.requireNonNullElse(p.getAppProtocol(), ""));
        }
        parts.sort(Comparator.naturalOrder());
        return String.join(",", parts);
    }

    static String address(Endpoint e) {
        return e.getAddresses() == null || e.getAddresses().isEmpty() ? "" : e.getAddresses().get(0);
    }

    static Writes plan(Map<String, Mapping> desired, List<EndpointSlice> existing, int max) {
        List<EndpointSlice> create = new ArrayList<>();
        List<EndpointSlice> update = new ArrayList<>();
        List<EndpointSlice> delete = new ArrayList<>();
        List<EndpointSlice> kept = new ArrayList<>();
        Map<String, List<EndpointSlice>> byKey = new LinkedHashMap<>();
        for (EndpointSlice s : existing) {
            String k = key(s.getPorts());
            if (desired.containsKey(k)) {
                byKey.computeIfAbsent(k, x -> new ArrayList<>()).add(s);
            } else {
                delete.add(s);
            }
        }
        for (Map.Entry<String, Mapping> e : desired.entrySet()) {
            Map<String, Endpoint> remaining = new LinkedHashMap<>(e.getValue().endpoints());
            List<EndpointSlice> changed = new ArrayList<>();
            List<EndpointSlice> unchanged = new ArrayList<>();
            for (EndpointSlice s : byKey.getOrDefault(e.getKey(), List.of())) {
                List<Endpoint> now = new ArrayList<>();
                boolean differs = false;
                for (Endpoint ep : Objects.requireNonNullElse(s.getEndpoints(), List.<Endpoint>of())) {
                    Endpoint want = remaining.remove(address(ep));
                    if (want == null) {
                        differs = true;
                    } else {
                        differs |= !Json.toTree(want).equals(Json.toTree(ep));
                        now.add(want);
                    }
                }
                if (!differs) {
                    unchanged.add(s);
                } else if (now.isEmpty()) {
                    delete.add(s);
                } else {
                    changed.add(withEndpoints(s, now));
                }
            }
            Deque<Endpoint> rest = new ArrayDeque<>(remaining.values());
            for (EndpointSlice s : changed) {
                while (!rest.isEmpty() && s.getEndpoints().size() < max) {
                    s.getEndpoints().add(rest.poll());
                }
            }
            if (!rest.isEmpty()) {
                EndpointSlice fullest = null;
                for (EndpointSlice s : unchanged) {
                    int size = size(s);
                    if (size + rest.size() <= max && (fullest == null || size > size(fullest))) {
                        fullest = s;
                    }
                }
                if (fullest != null) {
                    unchanged.remove(fullest);
                    EndpointSlice filled = withEndpoints(fullest, new ArrayList<>(
                            Objects.requireNonNullElse(fullest.getEndpoints(), List.of())));
                    filled.getEndpoints().addAll(rest);
                    rest.clear();
                    changed.add(filled);
                }
            }
            while (!rest.isEmpty()) {
                List<Endpoint> chunk = new ArrayList<>();
                while (!rest.isEmpty() && chunk.size() < max) {
                    chunk.add(rest.poll());
                }
                EndpointSlice s = new EndpointSlice();
                s.setPorts(new ArrayList<>(e.getValue().ports()));
                s.setEndpoints(chunk);
                create.add(s);
            }
            // a mapping has endpoints, so they are elsewhere: an empty slice of it is one too many
            for (EndpointSlice s : unchanged) {
                if (size(s) == 0) {
                    delete.add(s);
                } else {
                    kept.add(s);
                }
            }
            update.addAll(changed);
        }
        if (kept.isEmpty() && update.isEmpty() && create.isEmpty()) {
            EndpointSlice placeholder = delete.stream().filter(s -> size(s) == 0 && key(s.getPorts()).isEmpty())
                    .findFirst().orElse(null);
            if (placeholder != null) {
                delete.remove(placeholder);
            } else {
                EndpointSlice s = new EndpointSlice();
                s.setPorts(new ArrayList<>());
                s.setEndpoints(new ArrayList<>());
                create.add(s);
            }
        }
        return new Writes(create, update, delete);
    }

    private static int size(EndpointSlice s) {
        return s.getEndpoints() == null ? 0 : s.getEndpoints().size();
    }

    private static EndpointSlice withEndpoints(EndpointSlice s, List<Endpoint> endpoints) {
        EndpointSlice copy = Json.convert(Json.toTree(s), EndpointSlice.class);
        copy.setEndpoints(endpoints);
        return copy;
    }
}
