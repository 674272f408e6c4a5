package io.cybernetes.node;

import io.cybernetes.api.WebSocketConnection;

import io.fabric8.kubernetes.api.model.Pod;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Port forwarding in the WebSocket channel protocol ({@code v4.channel.k8s.io}), as the
 * Python client and other clients of the kubelet's older protocol use it: one connection per
 * port asked for, port i's bytes on channel 2i and its errors on 2i+1, each channel opened
 * with the port number in two little-endian bytes. Once every port's connection has ended,
 * the session closes.
 */
final class ChannelPortForward {

    private ChannelPortForward() {
    }

    static void run(WebSocketConnection ws, Pod pod, List<Integer> ports) throws IOException {
        List<PortTargets.Target> targets = new ArrayList<>();
        java.util.concurrent.atomic.AtomicInteger live = new java.util.concurrent.atomic.AtomicInteger(ports.size());
        try {
            for (int i = 0; i < ports.size(); i++) {
                int port = ports.get(i);
                byte lo = (byte) (port & 0xFF);
                byte hi = (byte) (port >>> 8);
                ws.sendBinary(new byte[] {(byte) (2 * i), lo, hi});
                ws.sendBinary(new byte[] {(byte) (2 * i + 1), lo, hi});
                PortTargets.Target t;
                try {
                    t = PortTargets.open(pod, port);
                } catch (IOException e) {
                    send(ws, 2 * i + 1, e.getMessage().getBytes(StandardCharsets.UTF_8), e.getMessage().length());
                    targets.add(null);
                    if (live.decrementAndGet() == 0) {
                        ws.close(1000, "");
                    }
                    continue;
                }
                targets.add(t);
                int channel = 2 * i;
                Thread pump = new Thread(() -> {
                    byte[] buf = new byte[32 * 1024];
                    try (InputStream from = t.from()) {
                        int n;
                        while ((n = from.read(buf)) >= 0) {
                            send(ws, channel, buf, n);
                        }
                    } catch (IOException e) {
                        // the client or the port went
                    }
                    if (live.decrementAndGet() == 0) {
                        ws.close(1000, ""); // every port's connection ended: so does the session, as the kubelet's
                    }
                }, "port-forward-" + port);
                pump.setDaemon(true);
                pump.start();
            }
            WebSocketConnection.Message m;
            while ((m = ws.read()) != null) {
                if (m.data().length == 0) { // text frames carry channels as binary ones do
                    continue;
                }
                int ch = m.data()[0] & 0xFF;
                if (ch % 2 != 0 || ch / 2 >= targets.size() || targets.get(ch / 2) == null) {
                    continue;
                }
                PortTargets.Target t = targets.get(ch / 2);
                t.to().write(Arrays.copyOfRange(m.data(), 1, m.data().length));
                t.to().flush();
            }
        } finally {
            targets.forEach(t -> {
                if (t != null) {
                    t.close();
                }
            });
            ws.close(1000, "");
        }
    }

    private static void send(WebSocketConnection ws, int channel, byte[] data, int n) throws IOException {
        byte[] m = new byte[n + 1];
        m[0] = (byte) channel;
        System.arraycopy(data, 0, m, 1, n);
        ws.sendBinary(m);
    }
}
