package io.cybernetes.controller.service;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The load balancers' address pool: CIDRs, ranges and addresses, handed out in order. */
class AddressPoolTest {

    @Test
    void addressesAreHandedOutInTheOrderGiven() {
        AddressPool pool = AddressPool.parse(List.of("198.51.100.10-198.51.100.11", "203.0.113.7", "192.0.2.0/31"));
        assertThat(pool.firstFree(Set.of())).isEqualTo("198.51.100.10");
        assertThat(pool.firstFree(Set.of("198.51.100.10", "198.51.100.11"))).isEqualTo("203.0.113.7");
        assertThat(pool.firstFree(Set.of("198.51.100.10", "198.51.100.11", "203.0.113.7", "192.0.2.0")))
                .isEqualTo("192.0.2.1");
        assertThat(pool.firstFree(Set.of("198.51.100.10", "198.51.100.11", "203.0.113.7", "192.0.2.0", "192.0.2.1")))
                .isNull();
        assertThat(pool.contains("192.0.2.1")).isTrue();
        assertThat(pool.contains("192.0.2.2")).isFalse();
        assertThat(pool.contains("not-an-address")).isFalse();
    }

    @Test
    void aPoolThatCannotBeReadIsRefused() {
        assertThatThrownBy(() -> AddressPool.parse(List.of("198.51.100.20-198.51.100.10")))
                .hasMessageContaining("must not end before it starts");
        assertThatThrownBy(() -> AddressPool.parse(List.of("198.51.100/24"))).hasMessageContaining("not an IPv4 address");
        assertThatThrownBy(() -> AddressPool.parse(List.of("10.0.0.0/4"))).hasMessageContaining("prefix of 8 to 32");
    }
}
