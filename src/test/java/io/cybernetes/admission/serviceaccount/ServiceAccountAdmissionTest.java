package io.cybernetes.admission.serviceaccount;

import io.cybernetes.admission.Attributes;
import io.cybernetes.admission.FakeCluster;
import io.cybernetes.api.ApiException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ServiceAccountAdmissionTest {

    final FakeCluster cluster = new FakeCluster().add("", "serviceaccounts",
            "{\"metadata\":{\"name\":\"builder\",\"namespace\":\"ns\"}}");

    Attributes pod(String spec) {
        return FakeCluster.pod(Attributes.Operation.CREATE, "ns", "{\"metadata\":{\"name\":\"p\"},\"spec\":" + spec + "}");
    }

    @Test
    void aPodWithoutAnAccountRunsAsDefault() {
        Attributes a = pod("{\"containers\":[{\"name\":\"c\"}]}");
        new ServiceAccountAdmission(cluster).admit(a);
        assertThat(a.object().path("spec").path("serviceAccountName").asString()).isEqualTo("default");
    }

    @Test
    void aPodNamingAnExistingAccountKeepsIt() {
        Attributes a = pod("{\"serviceAccountName\":\"builder\",\"containers\":[{\"name\":\"c\"}]}");
        new ServiceAccountAdmission(cluster).admit(a);
        assertThat(a.object().path("spec").path("serviceAccountName").asString()).isEqualTo("builder");
    }

    @Test
    void aPodNamingAMissingAccountIsRefused() {
        Attributes a = pod("{\"serviceAccountName\":\"ghost\",\"containers\":[{\"name\":\"c\"}]}");
        assertThatThrownBy(() -> new ServiceAccountAdmission(cluster).admit(a)).isInstanceOf(ApiException.class)
                .hasMessage("pods \"p\" is forbidden: error looking up service account ns/ghost: serviceaccount \"ghost\""
                        + " not found");
    }
}
