package io.cybernetes.apiserver.internal.allocation;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RangesTest {

    @Test
    void aServiceCidrHandsOutTheAddressesBetweenItsNetworkAndBroadcastAddresses() {
        IpRange r = IpRange.parse("10.96.0.0/12");
        assertThat(r.size()).isEqualTo((1 << 20) - 2);
        assertThat(r.address(0)).as("the kubernetes Service's").isEqualTo("10.96.0.1");
        assertThat(r.address(r.size() - 1)).isEqualTo("10.111.255.254");
        assertThat(r.offset("10.96.0.1")).isZero();
        assertThat(r.offset("10.96.0.0")).as("the network address").isEqualTo(-1);
        assertThat(r.offset("10.111.255.255")).as("the broadcast address").isEqualTo(-1);
        assertThat(r.offset("10.112.0.1")).isEqualTo(-1);
        assertThat(r.offset("10.96.1.010")).as("no leading zeros").isEqualTo(-1);
        assertThat(r.offset("not-an-ip")).isEqualTo(-1);
        assertThat(r.offset("10.96.0.\u0661")).as("ASCII digits only").isEqualTo(-1);
        assertThat(IpRange.parse("10.96.7.9/24").address(0)).as("taken down to its network").isEqualTo("10.96.7.1");
        assertThatThrownBy(() -> IpRange.parse("10.96.0.0")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> IpRange.parse("10.96.0.0/31")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> IpRange.parse("fd00::/108")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aPortRangeIncludesBothEnds() {
        PortRange r = PortRange.parse("30000-32767");
        assertThat(r.size()).isEqualTo(2768);
        assertThat(r.port(0)).isEqualTo("30000");
        assertThat(r.offset(32767)).isEqualTo(2767);
        assertThat(r.offset(29999)).isEqualTo(-1);
        assertThatThrownBy(() -> PortRange.parse("32767-30000")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PortRange.parse("0-10")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PortRange.parse("a-b")).isInstanceOf(IllegalArgumentException.class);
    }
}
