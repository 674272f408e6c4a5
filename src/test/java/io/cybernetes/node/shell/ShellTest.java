package io.cybernetes.node.shell;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The simulated shell's language: quoting, variables, operators, pipes and exit codes, as sh has them. */
class ShellTest {

    private static String[] run(String script, String stdin) throws Exception {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("HOSTNAME", "web-0");
        env.put("GREETING", "hello world");
        var pod = new PodBuilder().withNewMetadata().withName("web-0").withNamespace("ns").endMetadata()
                .withNewSpec().withAutomountServiceAccountToken(false).endSpec().build();
        Shell shell = new Shell(env, ContainerFiles.of(pod, new ContainerBuilder().withName("c").build(), null),
                "nginx", false);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = shell.exec(List.of("sh", "-c", script), new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                out, err);
        return new String[] {Integer.toString(code), out.toString(StandardCharsets.UTF_8),
                err.toString(StandardCharsets.UTF_8)};
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " ~ ", value = {
        "echo $GREETING ~ 0 ~ hello world\\n",
        "echo '$GREETING' \"$GREETING\" ~ 0 ~ $GREETING hello world\\n",
        "echo a\\ \\ b ~ 0 ~ a  b\\n",
        "false; echo $? ~ 0 ~ 1\\n",
        "false && echo no || echo yes ~ 0 ~ yes\\n",
        "true && echo one; echo two ~ 0 ~ one\\ntwo\\n",
        "echo c; echo a; echo b | sort ~ 0 ~ c\\na\\nb\\n",
        "printf x ~ 127 ~ ''",
        "exit 7; echo never ~ 7 ~ ''",
        "cd /etc && pwd && cat hostname ~ 0 ~ /etc\\nweb-0\\n",
        "env | grep -c GREETING ~ 0 ~ 1\\n",
        "echo ${HOSTNAME}-x # a comment ~ 0 ~ web-0-x\\n",
        "X=1; echo $X ~ 0 ~ 1\\n",
        "cat /nope || echo missing ~ 0 ~ missing\\n",
        "echo out; echo err >&2 ~ 0 ~ out\\n",
        "cat /nope 2>&1 | wc -l ~ 0 ~ 1\\n",
        "cat /nope 2>/dev/null || echo quiet ~ 0 ~ quiet\\n",
        "echo gone > /dev/null; echo kept ~ 0 ~ kept\\n",
        "wc -l < /etc/hostname ~ 0 ~ 1\\n",
        "echo a 2> /dev/null ~ 0 ~ a\\n",
        "sleep 0.1 && echo slept; sleep x || echo not a number ~ 0 ~ slept\\nnot a number\\n"})
    void scripts(String script, int code, String out) throws Exception {
        String[] r = run(script.trim(), "");
        assertThat(r[1]).as(r[2]).isEqualTo(out.replace("\\n", "\n").replace("''", ""));
        assertThat(Integer.parseInt(r[0])).isEqualTo(code);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " ~ ", value = {
        "nope ~ sh: nope: not found",
        "echo 'unterminated ~ sh: syntax error: unterminated quoted string",
        "| echo ~ sh: syntax error: unexpected \"|\"",
        "cat /etc ~ cat: read error: Is a directory",
        "echo x > /etc/hostname ~ sh: can't create /etc/hostname: Read-only file system",
        "echo x >&7 ~ sh: 7: bad file descriptor",
        "echo x > ~ sh: syntax error: unexpected newline",
        "echo out >&2 ~ out"})
    void errorsAreWordedAsShWordsThem(String script, String err) throws Exception {
        assertThat(run(script.trim(), "")[2]).startsWith(err);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " ~ ", value = {"cat ~ b\\na\\n ~ b\\na\\n", "head -n 1 ~ b\\na\\n ~ b\\n",
        "wc -l ~ x\\ny\\nz\\n ~ 3\\n", "tail -1 ~ a\\nb\\n ~ b\\n"})
    void filtersReadTheirInput(String script, String in, String out) throws Exception {
        assertThat(run(script.trim(), in.trim().replace("\\n", "\n"))[1]).isEqualTo(out.trim().replace("\\n", "\n"));
    }
}
