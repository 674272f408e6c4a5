package io.cybernetes.api;

import dev.cel.common.types.SimpleType;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** JSON as CEL sees it, converted whole or as it is read, and the budgets evaluations run under. */
class CelValuesTest {

    private static final CelPrograms CEL = new CelPrograms(CelValues.builder()
            .addVar("object", SimpleType.DYN).addVar("oldObject", SimpleType.DYN).build(), 1_000);

    private static final JsonNode POD = Json.MAPPER.readTree("""
            {"metadata":{"name":"web","labels":{"app":"web","tier":"front"}},
             "spec":{"replicas":3,"ratio":0.5,"paused":false,"note":null,
                     "containers":[{"name":"a","image":"nginx"},{"name":"b","image":""}]}}""");

    private static Object eval(String expression, Object object, Object oldObject) throws Exception {
        Map<String, Object> vars = new HashMap<>();
        vars.put("object", object);
        vars.put("oldObject", oldObject);
        return CEL.evaluate(expression, vars);
    }

    @Test
    void anObjectReadAsItIsReachedIsTheSameValueAsOneConvertedWhole() throws Exception {
        Object lazy = CelValues.lazy(POD);
        Object whole = CelValues.of(POD);
        assertThat(lazy).isEqualTo(whole);
        for (String expression : List.of(
                "object.spec.containers.filter(c, c.image == '').map(c, c.name)",
                "has(object.spec.replicas) && !has(object.spec.strategy)",
                "object.metadata.labels.size()",
                "object.metadata.labels.all(k, k in ['app', 'tier'])",
                "object.spec.replicas * 2 + int(object.spec.ratio * 10.0)",
                "object.spec.paused || object.spec.note == null",
                "object == oldObject",
                "'app' in object.metadata.labels")) {
            assertThat(eval(expression, lazy, CelValues.lazy(POD))).as(expression)
                    .isEqualTo(eval(expression, whole, CelValues.of(POD)));
        }
        assertThat(eval("object.spec.containers.filter(c, c.image == '').map(c, c.name)", lazy, null))
                .isEqualTo(List.of("b"));
    }

    @Test
    void evaluationsStopPastTheirOwnLimitAndPastTheBudgetTheyShare() throws Exception {
        String nested = "[1,2,3,4,5,6,7,8,9,10].all(i, [1,2,3,4,5,6,7,8,9,10].all(j, i * j > 0))";
        assertThatThrownBy(() -> eval(nested, null, null)).satisfies(e -> assertThat(CelValues.costExceeded(e)).isTrue());
        CelPrograms.Budget budget = new CelPrograms.Budget(1_500);
        Map<String, Object> vars = Map.of("object", CelValues.lazy(POD));
        String cheap = "object.spec.containers.all(c, c.name != '')";
        int runs = 0;
        try {
            while (runs < 1_000) {
                CEL.evaluate(cheap, vars, budget);
                runs++;
            }
        } catch (CelPrograms.BudgetExhausted spent) {
            assertThat(spent.getMessage()).isEqualTo("validation failed due to running out of cost budget, no further"
                    + " validation rules will be run");
        }
        assertThat(runs).as("a few cheap evaluations fit, then the shared budget is spent").isBetween(2, 999);
        assertThatThrownBy(() -> CEL.evaluate(cheap, vars, budget)).isInstanceOf(CelPrograms.BudgetExhausted.class);
    }
}
