package io.cybernetes.controller.endpointslice;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointConditions;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The slice planner: slices of at most the limit, as few writes as can be, a placeholder when there is nothing. */
class SlicePlanTest {

    private static final List<EndpointPort> HTTP = List.of(port("http", 8080));

    private static EndpointPort port(String name, int number) {
        EndpointPort p = new EndpointPort();
        p.setName(name);
        p.setPort(number);
        p.setProtocol("TCP");
        return p;
    }

    private static Endpoint endpoint(int i, boolean ready) {
        Endpoint e = new Endpoint();
        e.setAddresses(new ArrayList<>(List.of("10.244.0." + i)));
        EndpointConditions c = new EndpointConditions();
        c.setReady(ready);
        e.setConditions(c);
        return e;
    }

    private static Map<String, SlicePlan.Mapping> desired(List<EndpointPort> ports, int from, int to) {
        Map<String, Endpoint> eps = new LinkedHashMap<>();
        for (int i = from; i < to; i++) {
            eps.put("10.244.0." + i, endpoint(i, true));
        }
        return new LinkedHashMap<>(Map.of(SlicePlan.key(ports), new SlicePlan.Mapping(ports, eps)));
    }

    private static EndpointSlice slice(String name, List<EndpointPort> ports, int from, int to) {
        EndpointSlice s = new EndpointSlice();
        ObjectMeta m = new ObjectMeta();
        m.setName(name);
        s.setMetadata(m);
        s.setPorts(new ArrayList<>(ports));
        List<Endpoint> eps = new ArrayList<>();
        for (int i = from; i < to; i++) {
            eps.add(endpoint(i, true));
        }
        s.setEndpoints(eps);
        return s;
    }

    @Test
    void endpointsAreCutIntoSlicesOfTheLimit() {
        SlicePlan.Writes w = SlicePlan.plan(desired(HTTP, 0, 250), List.of(), 100);
        assertThat(w.create()).extracting(s -> s.getEndpoints().size()).containsExactly(100, 100, 50);
        assertThat(w.update()).isEmpty();
        assertThat(w.delete()).isEmpty();
    }

    @Test
    void nothingChangedIsNoWrite() {
        SlicePlan.Writes w = SlicePlan.plan(desired(HTTP, 0, 150),
                List.of(slice("a", HTTP, 0, 100), slice("b", HTTP, 100, 150)), 100);
        assertThat(w.isEmpty()).isTrue();
    }

    @Test
    void oneEndpointChangedIsOneSliceWrittenAndANewOneGoesWhereThereIsRoom() {
        Map<String, SlicePlan.Mapping> want = desired(HTTP, 0, 151);
        want.values().iterator().next().endpoints().put("10.244.0.5", endpoint(5, false));
        SlicePlan.Writes w = SlicePlan.plan(want, List.of(slice("a", HTTP, 0, 100), slice("b", HTTP, 100, 150)), 100);
        assertThat(w.create()).isEmpty();
        assertThat(w.delete()).isEmpty();
        // "a" changes for endpoint 5 but is full, so the new endpoint 150 goes into "b", the fullest that takes it
        assertThat(w.update()).extracting(s -> s.getMetadata().getName()).containsExactlyInAnyOrder("a", "b");
        EndpointSlice b = w.update().stream().filter(s -> s.getMetadata().getName().equals("b")).findFirst().orElseThrow();
        assertThat(b.getEndpoints()).hasSize(51);
    }

    @Test
    void aSliceLeftEmptyIsDeletedAndSlicesOfPortsNoLongerServedGo() {
        List<EndpointPort> other = List.of(port("http", 9090));
        SlicePlan.Writes w = SlicePlan.plan(desired(HTTP, 0, 10),
                List.of(slice("a", HTTP, 0, 10), slice("b", HTTP, 10, 20), slice("c", other, 30, 40)), 100);
        assertThat(w.delete()).extracting(s -> s.getMetadata().getName()).containsExactlyInAnyOrder("b", "c");
        assertThat(w.update()).isEmpty();
        assertThat(w.create()).isEmpty();
    }

    @Test
    void noEndpointsLeaveOnePlaceholderSlice() {
        SlicePlan.Writes first = SlicePlan.plan(Map.of(), List.of(slice("a", HTTP, 0, 3)), 100);
        assertThat(first.delete()).extracting(s -> s.getMetadata().getName()).containsExactly("a");
        assertThat(first.create()).hasSize(1);
        assertThat(first.create().get(0).getEndpoints()).isEmpty();
        assertThat(first.create().get(0).getPorts()).isEmpty();
        // the placeholder there already is kept, not made again
        SlicePlan.Writes again = SlicePlan.plan(Map.of(), List.of(slice("p", List.of(), 0, 0)), 100);
        assertThat(again.isEmpty()).isTrue();
        // endpoints arriving replace it
        SlicePlan.Writes filled = SlicePlan.plan(desired(HTTP, 0, 2), List.of(slice("p", List.of(), 0, 0)), 100);
        assertThat(filled.delete()).extracting(s -> s.getMetadata().getName()).containsExactly("p");
        assertThat(filled.create()).hasSize(1);
    }
}
