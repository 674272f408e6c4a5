package io.cybernetes.controller.endpointslicemirroring;

import io.cybernetes.client.Indexer;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.EndpointsBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What the mirroring controller makes of an Endpoints object, without a server. */
class EndpointSliceMirroringControllerTest {

    private static EndpointSliceMirroringController controller(int max) {
        return new EndpointSliceMirroringController(null, new Indexer<>(), new Indexer<>(), new Indexer<>(), null, max);
    }

    @Test
    void addressesAreWrittenAsKubernetesWritesThem() {
        assertThat(EndpointSliceMirroringController.normalized("10.0.0.1")).containsExactly("10.0.0.1", "IPv4");
        assertThat(EndpointSliceMirroringController.normalized("010.000.0.01")).containsExactly("10.0.0.1", "IPv4");
        assertThat(EndpointSliceMirroringController.normalized("2001:DB8:0:0:1:0:0:1"))
                .containsExactly("2001:db8::1:0:0:1", "IPv6");
        assertThat(EndpointSliceMirroringController.normalized("0:0:0:0:0:0:0:1")).containsExactly("::1", "IPv6");
        assertThat(EndpointSliceMirroringController.normalized("::ffff:192.0.2.1")).containsExactly("192.0.2.1", "IPv4");
        assertThat(EndpointSliceMirroringController.normalized("256.0.0.1")).isNull();
        assertThat(EndpointSliceMirroringController.normalized("db.example.com")).isNull();
        assertThat(EndpointSliceMirroringController.normalized("")).isNull();
    }

    @Test
    void subsetsWithTheSamePortsShareASliceAndEachIsCutAtTheLimit() {
        Endpoints ep = new EndpointsBuilder().withNewMetadata().withName("db").withNamespace("ns").endMetadata()
                .addNewSubset().addNewAddress().withIp("192.0.2.1").endAddress().addNewAddress().withIp("192.0.2.2")
                .endAddress().addNewNotReadyAddress().withIp("192.0.2.3").endNotReadyAddress()
                .addNewPort().withPort(5432).endPort().endSubset()
                .addNewSubset().addNewAddress().withIp("192.0.2.4").endAddress().addNewAddress().withIp("bogus")
                .endAddress().addNewPort().withPort(5432).endPort().endSubset().build();
        EndpointSliceMirroringController.Desired d = controller(2).desired(ep);
        assertThat(d.mappings()).hasSize(1);
        assertThat(d.mappings().values().iterator().next().endpoints())
                .extracting(e -> e.getAddresses().get(0)).containsExactly("192.0.2.1", "192.0.2.2", "192.0.2.4");
        assertThat(d.skipped()).as("one over the limit, one not an IP").isEqualTo(2);
        assertThat(d.invalid()).isEqualTo(1);
    }

    @Test
    void onlyEndpointsOfAServiceWithoutASelectorAreMirrored() {
        Endpoints ep = new EndpointsBuilder().withNewMetadata().withName("db").endMetadata().build();
        assertThat(EndpointSliceMirroringController.mirrored(ep, null)).isFalse();
        assertThat(EndpointSliceMirroringController.mirrored(ep, new ServiceBuilder().withNewSpec().endSpec().build()))
                .isTrue();
        assertThat(EndpointSliceMirroringController.mirrored(ep, new ServiceBuilder().withNewSpec()
                .addToSelector("app", "db").endSpec().build())).isFalse();
        Endpoints skip = new EndpointsBuilder(ep).editMetadata()
                .addToLabels("endpointslice.kubernetes.io/skip-mirror", "true").endMetadata().build();
        assertThat(EndpointSliceMirroringController.mirrored(skip, new ServiceBuilder().withNewSpec().endSpec().build()))
                .isFalse();
        Endpoints lock = new EndpointsBuilder(ep).editMetadata()
                .addToAnnotations("control-plane.alpha.kubernetes.io/leader", "{}").endMetadata().build();
        assertThat(EndpointSliceMirroringController.mirrored(lock, new ServiceBuilder().withNewSpec().endSpec().build()))
                .isFalse();
    }
}
