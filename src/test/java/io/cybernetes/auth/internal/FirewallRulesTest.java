package io.cybernetes.auth.internal;

import org.junit.jupiter.api.Test;

import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The firewall's character rules, checked by loops: names accept and refuse exactly what Spring Security's pattern
 * does; header values what Go's HTTP server (kube-apiserver's) takes.
 */
class FirewallRulesTest {

    private static final Pattern NAMES = Pattern.compile("[\\p{IsAssigned}&&[^\\p{IsControl}]]*");

    @Test
    void namesAreJudgedOnEveryCodePointAsSpringSecuritysPatternJudgesThem() {
        int differences = 0;
        for (int cp = 0; cp <= Character.MAX_CODE_POINT; cp++) {
            String s = "a" + new String(Character.toChars(cp)) + "b";
            if (AuthConfiguration.assignedAndNotControl(s) != NAMES.matcher(s).matches()) {
                differences++;
            }
        }
        assertThat(differences).isZero();
        assertThat(AuthConfiguration.assignedAndNotControl("lone \ud800 surrogate"))
                .isEqualTo(NAMES.matcher("lone \ud800 surrogate").matches());
    }

    @Test
    void headerValuesRefuseControlCharactersButTheTabAndTakeObsText() {
        for (char c = 0; c < 0x100; c++) {
            boolean go = c == '\t' || (c >= 0x20 && c != 0x7f);
            assertThat(AuthConfiguration.validHeaderValue("a" + c + "b")).as("0x%02x", (int) c).isEqualTo(go);
        }
        assertThat(AuthConfiguration.validHeaderValue("Bearer abc.def")).isTrue();
        assertThat(AuthConfiguration.validHeaderValue("kubectl/v1.32.0 (linux/amd64) kubernetes/abc")).isTrue();
        assertThat(AuthConfiguration.validHeaderValue("")).isTrue();
    }
}
