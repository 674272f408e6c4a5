package io.cybernetes.api;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CompactNodeFactoryTest {

    @Test
    void fieldsKeepInsertionOrderThroughPutsReplacesAndRemovesBelowAndAboveTheLimit() {
        for (int n : new int[] {0, 1, 3, CompactNodeFactory.LIMIT, CompactNodeFactory.LIMIT + 1, 40}) {
            ObjectNode compact = CompactNodeFactory.INSTANCE.objectNode();
            ObjectNode plain = JsonNodeFactory.instance.objectNode();
            for (int i = 0; i < n; i++) {
                compact.put("f" + i, i);
                plain.put("f" + i, i);
            }
            compact.put("f0", "again");
            plain.put("f0", "again");
            compact.remove("f1");
            plain.remove("f1");
            compact.put("late", true);
            plain.put("late", true);
            assertThat(names(compact)).as("%d fields", n).isEqualTo(names(plain));
            assertThat(compact).isEqualTo(plain);
            assertThat(plain).isEqualTo(compact);
            assertThat(compact.hashCode()).isEqualTo(plain.hashCode());
            assertThat(Json.write(compact)).isEqualTo(Json.write(plain));
            assertThat(compact.get("missing")).isNull();
            assertThat(compact.has("late")).isTrue();
            assertThat(compact.size()).isEqualTo(plain.size());
        }
    }

    @Test
    void iteratingWritesThroughAndRemovesAndAChangeMeanwhileIsRefused() {
        ObjectNode o = CompactNodeFactory.INSTANCE.objectNode();
        o.put("a", 1).put("b", 2).put("c", 3);
        Iterator<Map.Entry<String, JsonNode>> it = o.properties().iterator();
        Map.Entry<String, JsonNode> a = it.next();
        a.setValue(o.numberNode(10));
        it.next();
        it.remove();
        assertThat(names(o)).containsExactly("a", "c");
        assertThat(o.get("a").asInt()).isEqualTo(10);
        Iterator<Map.Entry<String, JsonNode>> stale = o.properties().iterator();
        stale.next();
        o.put("d", 4);
        assertThatThrownBy(stale::next).isInstanceOf(java.util.ConcurrentModificationException.class);
    }

    @Test
    void parsedTreesAndTheirCopiesAreCompactAndEqualToWhatTheyWereParsedFrom() {
        String text = "{\"metadata\":{\"name\":\"a\",\"labels\":{\"x\":\"1\"},\"managedFields\":[{\"fieldsV1\":"
                + "{\"f:data\":{\"f:k\":{}}}}]},\"data\":{\"k\":\"v\"},\"items\":[{},{\"n\":null}]}";
        ObjectNode parsed = Json.parseStored(text);
        assertThat(Json.write(parsed)).isEqualTo(text);
        assertThat(Json.write(parsed.deepCopy())).isEqualTo(text);
        assertThat(Json.object().put("x", 1)).isEqualTo(JsonNodeFactory.instance.objectNode().put("x", 1));
        assertThat(parsed.deepCopy()).isEqualTo(parsed);
    }

    private static List<String> names(ObjectNode o) {
        List<String> out = new ArrayList<>();
        o.properties().forEach(e -> out.add(e.getKey()));
        return out;
    }
}
