package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.store.WatchEvent;

import java.nio.charset.StandardCharsets;

/**
 * The wire form of recent watch events, encoded once and shared by every watcher that
 * sends the same event the same way (most of them: plain JSON, no selector turning it
 * into another type). A small ring indexed by revision; a miss just encodes again.
 */
public final class EncodedEvents {

    private record Line(long revision, String type, byte[] bytes) {
    }

    private static final int SIZE = 4096;
    private final Line[] ring = new Line[SIZE];

    public byte[] line(WatchEvent event, String type) {
        int slot = (int) (event.revision() & (SIZE - 1));
        Line l = ring[slot];
        if (l != null && l.revision() == event.revision() && l.type().equals(type)) {
            return l.bytes();
        }
        byte[] bytes = ("{\"type\":\"" + type + "\",\"object\":" + event.jsonText() + "}\n")
                .getBytes(StandardCharsets.UTF_8);
        ring[slot] = new Line(event.revision(), type, bytes);
        return bytes;
    }
}
