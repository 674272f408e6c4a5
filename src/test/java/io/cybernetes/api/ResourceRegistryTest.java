package io.cybernetes.api;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Kinds come and go at run time; every lookup sees one consistent set of them. */
class ResourceRegistryTest {

    static ResourceType widgets(String version, String kind) {
        return new ResourceType("example.com", version, kind, "widgets", "widget", true, List.of("wd"), List.of("all"),
                Set.of("status"), ResourceType.NameRule.DNS1123_SUBDOMAIN, GenericKubernetesResource.class,
                ResourceType.STORED_VERBS);
    }

    @Test
    void aRegisteredKindIsServedUntilItIsUnregistered() {
        ResourceRegistry registry = ResourceRegistry.builtIn();
        List<ResourceType> before = registry.all();
        assertThat(registry.byPath("example.com", "v1", "widgets")).isEmpty();

        registry.register(widgets("v1", "Widget"));
        assertThat(registry.byPath("example.com", "v1", "widgets")).map(ResourceType::kind).contains("Widget");
        assertThat(registry.byKind("example.com/v1", "Widget")).isPresent();
        assertThat(registry.groupVersions()).contains(new ResourceRegistry.GroupVersion("example.com", "v1"));
        assertThat(registry.in(new ResourceRegistry.GroupVersion("example.com", "v1"))).hasSize(1);
        assertThat(before).as("a snapshot taken before is not changed under its reader")
                .noneMatch(t -> t.group().equals("example.com"));

        // the same resource again replaces the first (a CRD whose names changed)
        registry.register(widgets("v1", "Gadget"));
        assertThat(registry.all().stream().filter(t -> t.group().equals("example.com"))).hasSize(1);
        assertThat(registry.byKind("example.com/v1", "Widget")).isEmpty();
        assertThat(registry.byKind("example.com/v1", "Gadget")).isPresent();

        registry.unregister(widgets("v1", "Gadget"));
        assertThat(registry.byPath("example.com", "v1", "widgets")).isEmpty();
        assertThat(registry.groupVersions()).doesNotContain(new ResourceRegistry.GroupVersion("example.com", "v1"));
        assertThat(registry.all()).hasSameSizeAs(before);
    }

    @Test
    void theStatusViewsAreNotBuiltInButRegisteredByTheirComponents() {
        assertThat(ResourceRegistry.builtIn().all()).noneMatch(t -> t.group().equals(ResourceRegistry.STATUS));
        ResourceType view = ResourceRegistry.view("Scheduler", "schedulers", false);
        assertThat(view.view()).isTrue();
        assertThat(view.stored()).isFalse();
        assertThat(view.verbs()).containsExactly("get", "list");
    }
}
