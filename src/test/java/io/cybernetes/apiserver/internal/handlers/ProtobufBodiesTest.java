package io.cybernetes.apiserver.internal.handlers;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.cybernetes.api.ApiException;
import io.kubernetes.client.proto.IntStr;
import io.kubernetes.client.proto.Meta;
import io.kubernetes.client.proto.Resource;
import io.kubernetes.client.proto.Runtime;
import io.kubernetes.client.proto.V1;
import io.kubernetes.client.proto.V1Apps;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ProtobufBodiesTest {

    private static byte[] envelope(String apiVersion, String kind, Message m) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(new byte[] {0x6b, 0x38, 0x73, 0x00});
        out.writeBytes(Runtime.Unknown.newBuilder()
                .setTypeMeta(Runtime.TypeMeta.newBuilder().setApiVersion(apiVersion).setKind(kind))
                .setRaw(m.toByteString()).build().toByteArray());
        return out.toByteArray();
    }

    @Test
    void aDeploymentBecomesItsJsonForm() {
        V1Apps.Deployment d = V1Apps.Deployment.newBuilder()
                .setMetadata(Meta.ObjectMeta.newBuilder().setName("web").setNamespace("")
                        .setCreationTimestamp(Meta.Time.newBuilder().build()))
                .setSpec(V1Apps.DeploymentSpec.newBuilder().setReplicas(0)
                        .setStrategy(V1Apps.DeploymentStrategy.newBuilder().setType("RollingUpdate")
                                .setRollingUpdate(V1Apps.RollingUpdateDeployment.newBuilder()
                                        .setMaxSurge(IntStr.IntOrString.newBuilder().setType(1).setStrVal("25%"))
                                        .setMaxUnavailable(IntStr.IntOrString.newBuilder().setType(0).setIntVal(1))))
                        .setTemplate(V1.PodTemplateSpec.newBuilder().setSpec(V1.PodSpec.newBuilder()
                                .addContainers(V1.Container.newBuilder().setName("c").setImage("nginx")
                                        .setResources(V1.ResourceRequirements.newBuilder()
                                                .putLimits("cpu", Resource.Quantity.newBuilder().setString("500m").build())))
                                .setRestartPolicy(""))))
                .build();
        ObjectNode json = ProtobufBodies.decode(envelope("apps/v1", "Deployment", d));
        assertThat(json.get("apiVersion").asString()).isEqualTo("apps/v1");
        assertThat(json.get("kind").asString()).isEqualTo("Deployment");
        assertThat(json.at("/metadata/name").asString()).isEqualTo("web");
        assertThat(json.at("/metadata").has("namespace")).as("empty strings are left out").isFalse();
        assertThat(json.at("/metadata").has("creationTimestamp")).as("a zero time is left out").isFalse();
        assertThat(json.at("/spec/replicas").asInt(-1)).as("an explicit zero stays").isZero();
        assertThat(json.at("/spec/strategy/rollingUpdate/maxSurge").asString()).isEqualTo("25%");
        assertThat(json.at("/spec/strategy/rollingUpdate/maxUnavailable").asInt()).isEqualTo(1);
        assertThat(json.at("/spec/template/spec/containers/0/resources/limits/cpu").asString()).isEqualTo("500m");
        assertThat(json.at("/spec/template/spec").has("restartPolicy")).isFalse();
    }

    @Test
    void secretBytesBecomeBase64AndTimesRfc3339() {
        V1.Secret s = V1.Secret.newBuilder()
                .setMetadata(Meta.ObjectMeta.newBuilder().setName("s")
                        .setCreationTimestamp(Meta.Time.newBuilder().setSeconds(1_700_000_000L)))
                .putData("pw", ByteString.copyFrom("hunter2", StandardCharsets.UTF_8)).build();
        ObjectNode json = ProtobufBodies.decode(envelope("v1", "Secret", s));
        assertThat(json.at("/data/pw").asString()).isEqualTo("aHVudGVyMg==");
        assertThat(json.at("/metadata/creationTimestamp").asString()).isEqualTo("2023-11-14T22:13:20Z");
    }

    @Test
    void aBodyWithoutTheMagicOrOfAnUnknownKindIsABadRequest() {
        assertThatThrownBy(() -> ProtobufBodies.decode("{}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(400));
        assertThatThrownBy(() -> ProtobufBodies.decode(envelope("example.com/v1", "Widget", V1.Secret.getDefaultInstance())))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(400);
                    assertThat(e.getMessage()).isEqualTo("no kind \"Widget\" is registered for version \"example.com/v1\"");
                });
    }

    @Test
    void goDurations() {
        assertThat(ProtobufBodies.goDuration(0)).isEqualTo("0s");
        assertThat(ProtobufBodies.goDuration(1_500_000_000L)).isEqualTo("1.5s");
        assertThat(ProtobufBodies.goDuration(3_723_000_000_000L)).isEqualTo("1h2m3s");
    }
}
