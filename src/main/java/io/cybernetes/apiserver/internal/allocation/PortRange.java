package io.cybernetes.apiserver.internal.allocation;

/** A range of ports such as the node-port range {@code 30000-32767}, both ends included. */
public record PortRange(String text, int first, int last) {

    public static PortRange parse(String text) {
        String[] parts = text.split("-", -1);
        try {
            int first = Integer.parseInt(parts[0].trim());
            int last = parts.length == 2 ? Integer.parseInt(parts[1].trim()) : first;
            if (parts.length > 2 || first < 1 || last > 65535 || last < first) {
                throw new IllegalArgumentException("not a port range (first-last, 1 to 65535): " + text);
            }
            return new PortRange(text, first, last);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a port range (first-last, 1 to 65535): " + text);
        }
    }

    public int size() {
        return last - first + 1;
    }

    public String port(int offset) {
        return Integer.toString(first + offset);
    }

    /** The number of a port in the range, or -1 when it is outside. */
    public int offset(int port) {
        return port >= first && port <= last ? port - first : -1;
    }

    /** The number of a port written as {@link #port} writes it (ASCII digits, no leading zero), or -1. */
    public int offset(String port) {
        boolean canonical = !port.isEmpty() && port.length() <= 5 && port.chars().allMatch(ch -> ch >= '0' && ch <= '9')
                && (port.length() == 1 || port.charAt(0) != '0');
        return canonical ? offset(Integer.parseInt(port)) : -1;
    }
}
