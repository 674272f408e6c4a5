package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.cybernetes.apiserver.ApiTestSupport;
import io.fabric8.kubernetes.api.model.ConfigMap;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A kind's hooks before create and after delete (what address and port allocation builds
 * on): run around the store write, undone when the object is not stored, and after the
 * object is gone, whichever way it goes.
 */
class KindHooksTest extends ApiTestSupport {

    @Autowired
    ResourceRegistry registry;

    @Autowired
    KindDefinitions definitions;

    @Test
    void hooksRunAroundTheStoreWrite() {
        List<String> calls = new CopyOnWriteArrayList<>();
        ResourceType type = new ResourceType("hooks.example.com", "v1", "Hooked", "hookeds", "hooked", false, List.of(),
                List.of(), Set.of(), ResourceType.NameRule.DNS1123_SUBDOMAIN, ConfigMap.class,
                ResourceType.STORED_VERBS);
        KindStrategy strategy = new KindStrategy() {
            @Override
            public Runnable beforeCreate(ObjectNode obj) {
                String name = obj.path("metadata").path("name").asString();
                calls.add("take " + name);
                return () -> calls.add("give back " + name);
            }

            @Override
            public void afterDelete(ObjectNode last) {
                calls.add("deleted " + last.path("metadata").path("name").asString());
            }
        };
        definitions.register(new KindDefinition(type, strategy, KindDefinition.DEFAULT_COLUMNS, false, List.of(),
                new TypedSchema(definitions.schemas().of(type)), null, null));
        registry.register(type);
        try {
            String base = "/apis/hooks.example.com/v1/hookeds";
            String body = "{\"apiVersion\":\"hooks.example.com/v1\",\"kind\":\"Hooked\",\"metadata\":{\"name\":\"h1\"}}";
            assertThat(post(base, body).code()).isEqualTo(201);
            assertThat(post(base, body).code()).isEqualTo(409);
            assertThat(post(base + "?dryRun=All", body.replace("h1", "h2")).code()).isEqualTo(201);
            assertThat(delete(base + "/h1").code()).isEqualTo(200);
            assertThat(calls).containsExactly("take h1", "take h1", "give back h1", "deleted h1");
        } finally {
            registry.unregister(type);
            definitions.unregister(type);
        }
    }
}
