package io.cybernetes.api;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

class SelectorsTest {

    private static final Map<String, String> LABELS = Map.of("app", "web", "tier", "front");

    static Stream<Arguments> labelSelectors() {
        return Stream.of(
                arguments("app=web", true), arguments("app==web", true), arguments("app!=web", false),
                arguments("app in (web,db)", true), arguments("app notin (web)", false),
                arguments("tier", true), arguments("!tier", false), arguments("!missing", true),
                arguments("app=web,tier=back", false), arguments("app in (web), tier notin (back)", true),
                arguments("", true));
    }

    @ParameterizedTest(name = "{0} matches app=web,tier=front: {1}")
    @MethodSource("labelSelectors")
    void labelSelectorsInTheirStringForm(String selector, boolean matches) {
        assertThat(LabelSelector.parse(selector).matches(LABELS)).isEqualTo(matches);
    }

    @ParameterizedTest(name = "\"{0}\" is a 400")
    @MethodSource("badLabelSelectors")
    void malformedLabelSelectorsAreBadRequests(String selector) {
        assertThatThrownBy(() -> LabelSelector.parse(selector))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(400));
    }

    static Stream<String> badLabelSelectors() {
        return Stream.of("a in b", "a in (x", "=x", "a=b,,c=d", "bad key=x", "a=" + "v".repeat(64));
    }

    @Test
    void theObjectFormPrintsAsKubectlShowsIt() {
        JsonNode selector = Json.MAPPER.readTree("""
                {"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"In","values":["a","b"]},
                 {"key":"gpu","operator":"DoesNotExist"}]}""");
        LabelSelector s = LabelSelector.fromObject(selector);
        assertThat(s.toString()).isEqualTo("app=web,tier in (a,b),!gpu");
        assertThat(s.matches(Map.of("app", "web", "tier", "a"))).isTrue();
        assertThat(s.matches(Map.of("app", "web", "tier", "a", "gpu", "1"))).isFalse();
    }

    @Test
    void eventFieldSelectorsCoverTheInvolvedObjectAndSource() {
        ResourceType events = ResourceRegistry.builtIn().byPath("", "v1", "events").orElseThrow();
        JsonNode event = Json.MAPPER.readTree("""
                {"metadata":{"name":"e1","namespace":"ns"},"involvedObject":{"kind":"Pod","name":"web-1","uid":"u1"},
                 "source":{"component":"default-scheduler"},"reason":"FailedScheduling","type":"Warning"}""");
        assertThat(FieldSelector.parse("involvedObject.kind=Pod,involvedObject.name=web-1", events).matches(event)).isTrue();
        assertThat(FieldSelector.parse("involvedObject.uid!=u1", events).matches(event)).isFalse();
        assertThat(FieldSelector.parse("source=default-scheduler,type=Warning", events).matches(event)).isTrue();
        assertThatThrownBy(() -> FieldSelector.parse("spec.nodeName=n1", events))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.getMessage())
                        .isEqualTo("field label not supported: spec.nodeName"));
    }
}
