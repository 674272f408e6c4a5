package io.cybernetes.controller.service;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The addresses load balancers get, as a MetalLB address pool is written: CIDRs
 * ({@code 198.51.100.0/24}, every address of it, as MetalLB hands them out) and ranges
 * ({@code 198.51.100.10-198.51.100.20}, both ends included), in the order given.
 */
final class AddressPool {

    private final List<long[]> ranges;

    private AddressPool(List<long[]> ranges) {
        this.ranges = ranges;
    }

    static AddressPool parse(List<String> entries) {
        List<long[]> ranges = new ArrayList<>();
        for (String e : entries) {
            String s = e.trim();
            int slash = s.indexOf('/');
            int dash = s.indexOf('-');
            if (slash > 0) {
                long base = number(s.substring(0, slash));
                int prefix = Integer.parseInt(s.substring(slash + 1));
                if (prefix < 8 || prefix > 32) {
                    throw new IllegalArgumentException("not an IPv4 CIDR with a prefix of 8 to 32 bits: " + s);
                }
                long size = 1L << (32 - prefix);
                long first = base & ~(size - 1) & 0xFFFFFFFFL;
                ranges.add(new long[] {first, first + size - 1});
            } else if (dash > 0) {
                long first = number(s.substring(0, dash).trim());
                long last = number(s.substring(dash + 1).trim());
                if (last < first) {
                    throw new IllegalArgumentException("a range must not end before it starts: " + s);
                }
                ranges.add(new long[] {first, last});
            } else {
                long one = number(s);
                ranges.add(new long[] {one, one});
            }
        }
        return new AddressPool(List.copyOf(ranges));
    }

    private static long number(String ip) {
        String[] parts = ip.split("\\.", -1);
        if (parts.length != 4) {
            throw new IllegalArgumentException("not an IPv4 address: " + ip);
        }
        long v = 0;
        for (String p : parts) {
            int octet = Integer.parseInt(p);
            if (octet < 0 || octet > 255) {
                throw new IllegalArgumentException("not an IPv4 address: " + ip);
            }
            v = (v << 8) | octet;
        }
        return v;
    }

    private static String text(long a) {
        return ((a >> 24) & 255) + "." + ((a >> 16) & 255) + "." + ((a >> 8) & 255) + "." + (a & 255);
    }

    boolean contains(String ip) {
        long a;
        try {
            a = number(ip);
        } catch (IllegalArgumentException e) {
            return false;
        }
        for (long[] r : ranges) {
            if (a >= r[0] && a <= r[1]) {
                return true;
            }
        }
        return false;
    }

    /** The first address of the pool not in use, or null when every one is. */
    String firstFree(Set<String> inUse) {
        for (long[] r : ranges) {
            for (long a = r[0]; a <= r[1]; a++) {
                String ip = text(a);
                if (!inUse.contains(ip)) {
                    return ip;
                }
            }
        }
        return null;
    }
}
