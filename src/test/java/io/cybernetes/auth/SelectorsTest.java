package io.cybernetes.auth;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Selectors as authorizers read them: requirements in the authorization API's words, and what did not parse. */
class SelectorsTest {

    @Test
    void fieldTermsBecomeInAndNotInOfOneValueSortedAsKubernetesSortsThem() {
        Selectors s = Selectors.parse("status.phase!=Failed,spec.nodeName==n1,metadata.name=a\\,b", null);
        assertThat(s.field()).containsExactly(
                new Selectors.Requirement("metadata.name", Selectors.IN, List.of("a,b")),
                new Selectors.Requirement("spec.nodeName", Selectors.IN, List.of("n1")),
                new Selectors.Requirement("status.phase", Selectors.NOT_IN, List.of("Failed")));
        assertThat(s.fieldError()).isEmpty();
        assertThat(s.requiresField("spec.nodeName", "n1")).isTrue();
        assertThat(s.requiresField("status.phase", "Failed")).as("NotIn is no requirement to equal").isFalse();
        assertThat(Selectors.parse("spec.nodeName=", null).field())
                .containsExactly(new Selectors.Requirement("spec.nodeName", Selectors.IN, List.of("")));
    }

    @Test
    void labelRequirementsUseTheAuthorizationApisOperators() {
        Selectors s = Selectors.parse(null, "app=web,tier notin (a,b),canary,!legacy,env!=prod");
        assertThat(s.label()).containsExactly(
                new Selectors.Requirement("app", Selectors.IN, List.of("web")),
                new Selectors.Requirement("tier", Selectors.NOT_IN, List.of("a", "b")),
                new Selectors.Requirement("canary", Selectors.EXISTS, List.of()),
                new Selectors.Requirement("legacy", Selectors.DOES_NOT_EXIST, List.of()),
                new Selectors.Requirement("env", Selectors.NOT_IN, List.of("prod")));
        assertThat(Selectors.parse(null, null)).isEqualTo(Selectors.NONE);
    }

    @Test
    void aSelectorThatDoesNotParseIsLeftOutWithTheReason() {
        Selectors s = Selectors.parse("spec.nodeName", "app in (web");
        assertThat(s.field()).isEmpty();
        assertThat(s.fieldError()).isEqualTo("invalid selector: 'spec.nodeName'; can't understand 'spec.nodeName'");
        assertThat(s.label()).isEmpty();
        assertThat(s.labelError()).contains("unable to parse requirement");
        assertThat(s.requiresField("spec.nodeName", "")).isFalse();
        // values as Kubernetes unescapes them: a bare '=' or ',' and unknown escapes are refused
        assertThat(Selectors.parse("metadata.name=a=b", null).fieldError())
                .isEqualTo("invalid field selector: unescaped character in value: =");
        assertThat(Selectors.parse("metadata.name=a\\x", null).fieldError())
                .isEqualTo("invalid field selector: invalid escape sequence: \\x");
        assertThat(Selectors.parse("metadata.name=a\\=b", null).field()).containsExactly(
                new Selectors.Requirement("metadata.name", Selectors.IN, List.of("a=b")));
    }
}
