package io.cybernetes.apiserver.internal.allocation;

import io.cybernetes.store.Store;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.TestPropertySource;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Allocations in the store (H2): each member once, whoever asks at once; given back, taken again. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE)
@TestPropertySource(properties = {
        "spring.datasource.url=jdbc:h2:mem:allocator;DB_CLOSE_DELAY=-1",
        "cybernetes.auth.data-dir=./target/test-data/allocator",
        "cybernetes.controllers.enabled=false",
        "cybernetes.scheduler.enabled=false",
        "cybernetes.nodes.count=0"})
class AllocatorTest {

    @Autowired
    Store store;

    private String name() {
        return "test-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @Test
    void aMemberAskedForIsHandedOutOnceAndAgainOnceGivenBack() {
        Allocator ips = Allocator.of(store, name(), IpRange.parse("10.96.0.0/12"));
        ips.allocate("10.96.0.10", "default/a");
        assertThat(ips.holder("10.96.0.10")).isEqualTo("default/a");
        assertThatThrownBy(() -> ips.allocate("10.96.0.10", "default/b"))
                .isInstanceOfSatisfying(Allocator.Unavailable.class, e -> assertThat(e.taken()).isTrue())
                .hasMessage("10.96.0.10 is already allocated");
        assertThatThrownBy(() -> ips.allocate("10.200.0.1", "default/b"))
                .isInstanceOfSatisfying(Allocator.Unavailable.class, e -> assertThat(e.taken()).isFalse())
                .hasMessage("10.200.0.1 is not in the range 10.96.0.0/12");
        ips.release("10.96.0.10", "default/b");
        assertThat(ips.holder("10.96.0.10")).as("not the holder's to give back").isEqualTo("default/a");
        ips.release("10.96.0.10", "default/a");
        ips.release("10.96.0.10", "default/a");
        assertThat(ips.holder("10.96.0.10")).isNull();
        ips.allocate("10.96.0.10", "default/b");
        assertThat(ips.held()).extracting(h -> h[0] + "=" + h[1]).containsExactly("10.96.0.10=default/b");
        Allocator ports = Allocator.of(store, name(), PortRange.parse("30000-32767"));
        for (String other : java.util.List.of("+30000", "030000", "\u0663\u0660\u0660\u0660\u0660", " 30000")) {
            assertThatThrownBy(() -> ports.allocate(other, "default/c")).as(other)
                    .isInstanceOfSatisfying(Allocator.Unavailable.class, e -> assertThat(e.taken()).isFalse());
        }
        ports.allocate("30000", "default/c");
    }

    @Test
    void whoeverAsksAtOnceNoMemberIsHandedOutTwiceAndAFullRangeSaysSo() throws Exception {
        String name = name();
        PortRange range = PortRange.parse("30000-30039");
        Set<String> handed = ConcurrentHashMap.newKeySet();
        List<String> twice = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                String holder = "holder-" + t;
                done.add(pool.submit(() -> {
                    Allocator ports = Allocator.of(store, name, range);
                    for (int i = 0; i < 10; i++) {
                        String p = ports.allocateNext(holder);
                        if (!handed.add(p)) {
                            synchronized (twice) {
                                twice.add(p);
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        assertThat(twice).isEmpty();
        assertThat(handed).hasSize(40);
        assertThatThrownBy(() -> Allocator.of(store, name, range).allocateNext("late"))
                .isInstanceOf(Allocator.Unavailable.class).hasMessage("no free member of the range 30000-30039 is left");
    }
}
