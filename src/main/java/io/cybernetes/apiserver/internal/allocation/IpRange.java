package io.cybernetes.apiserver.internal.allocation;

/**
 * An IPv4 range in CIDR notation (a Service CIDR such as {@code 10.96.0.0/12}) as an
 * allocator sees it: the addresses between the network and the broadcast address, numbered
 * from 0. The first ({@code 10.96.0.1}) is the {@code kubernetes} Service's, as in Kubernetes.
 */
public record IpRange(String cidr, long base, int prefix) {

    /** Parses {@code a.b.c.d/n}; the address is taken down to its network. */
    public static IpRange parse(String cidr) {
        int slash = cidr.indexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException("not a CIDR (address/prefix): " + cidr);
        }
        long address = address(cidr.substring(0, slash));
        int prefix;
        try {
            prefix = Integer.parseInt(cidr.substring(slash + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a CIDR prefix length: " + cidr);
        }
        if (address < 0 || prefix < 8 || prefix > 30) {
            throw new IllegalArgumentException("not an IPv4 CIDR with a prefix of 8 to 30 bits: " + cidr);
        }
        long mask = (0xFFFFFFFFL << (32 - prefix)) & 0xFFFFFFFFL;
        return new IpRange(cidr, address & mask, prefix);
    }

    /** An IPv4 address as a number, or -1 when the text is none. */
    static long address(String text) {
        String[] parts = text.split("\\.", -1);
        if (parts.length != 4) {
            return -1;
        }
        long value = 0;
        for (String p : parts) {
            if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(ch -> ch >= '0' && ch <= '9')
                    || (p.length() > 1 && p.charAt(0) == '0')) {
                return -1;
            }
            int octet = Integer.parseInt(p);
            if (octet > 255) {
                return -1;
            }
            value = (value << 8) | octet;
        }
        return value;
    }

    /** How many addresses can be handed out: all but the network and broadcast addresses. */
    public int size() {
        return (int) ((1L << (32 - prefix)) - 2);
    }

    /** The address numbered {@code offset} (0 is the first after the network address). */
    public String address(int offset) {
        long a = base + 1 + offset;
        return ((a >> 24) & 255) + "." + ((a >> 16) & 255) + "." + ((a >> 8) & 255) + "." + (a & 255);
    }

    /** The number of an address in the range, or -1 when it is no address of the range's to hand out. */
    public int offset(String ip) {
        long a = address(ip);
        if (a < 0) {
            return -1;
        }
        long offset = a - base - 1;
        return offset >= 0 && offset < size() ? (int) offset : -1;
    }
}
