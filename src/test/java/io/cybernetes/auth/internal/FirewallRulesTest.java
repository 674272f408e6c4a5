package io.cybernetes.auth.internal;

import org.junit.jupiter.api.Test;

import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The firewall's character rules, checked by a loop, accept and refuse exactly what Spring Security's patterns do. */
class FirewallRulesTest {

    private static final Pattern NAMES = Pattern.compile("[\\p{IsAssigned}&&[^\\p{IsControl}]]*");
    private static final Pattern VALUES = Pattern.compile("[\\p{IsAssigned}&&[[^\\p{IsControl}]||\\t]]*");

    @Test
    void everyCodePointIsJudgedAsSpringSecuritysPatternsJudgeIt() {
        int differences = 0;
        for (int cp = 0; cp <= Character.MAX_CODE_POINT; cp++) {
            String s = "a" + new String(Character.toChars(cp)) + "b";
            if (AuthConfiguration.assignedAndNotControl(s, false) != NAMES.matcher(s).matches()
                    || AuthConfiguration.assignedAndNotControl(s, true) != VALUES.matcher(s).matches()) {
                differences++;
            }
        }
        assertThat(differences).isZero();
    }

    @Test
    void tabsAreAllowedInValuesOnlyAndControlCharactersNowhere() {
        assertThat(AuthConfiguration.assignedAndNotControl("Bearer abc.def", false)).isTrue();
        assertThat(AuthConfiguration.assignedAndNotControl("a\tb", true)).isTrue();
        assertThat(AuthConfiguration.assignedAndNotControl("a\tb", false)).isFalse();
        assertThat(AuthConfiguration.assignedAndNotControl("a\nb", true)).isFalse();
        assertThat(AuthConfiguration.assignedAndNotControl("a\u007fb", true)).isFalse();
        assertThat(AuthConfiguration.assignedAndNotControl("a\u0085b", true)).isFalse();
        assertThat(AuthConfiguration.assignedAndNotControl("caf\u00e9 \ud83d\ude00", false)).isTrue();
        assertThat(AuthConfiguration.assignedAndNotControl("lone \ud800 surrogate", false))
                .isEqualTo(NAMES.matcher("lone \ud800 surrogate").matches());
        assertThat(AuthConfiguration.assignedAndNotControl("", false)).isTrue();
    }
}
