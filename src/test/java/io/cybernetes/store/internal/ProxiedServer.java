package io.cybernetes.store.internal;

import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A server (the API alone) on the test PostgreSQL through a {@link TcpProxy}, for outages on demand. */
final class ProxiedServer extends InProcessServer {

    final TcpProxy proxy;

    private ProxiedServer(String name, TcpProxy proxy, String database, Duration connectionTimeout,
                          Map<String, String> settings) {
        super(name, "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + database, connectionTimeout, settings);
        this.proxy = proxy;
    }

    static ProxiedServer start(String name, Duration connectionTimeout) throws Exception {
        return start(name, connectionTimeout, Map.of());
    }

    static ProxiedServer start(String name, Duration connectionTimeout, Map<String, String> settings) throws Exception {
        Matcher m = Pattern.compile("jdbc:postgresql://([^:/]+)(?::(\\d+))?/([^?]+).*").matcher(PostgresTestDatabase.url());
        if (!m.matches()) {
            throw new IllegalArgumentException("not a jdbc:postgresql://host:port/db URL: " + PostgresTestDatabase.url());
        }
        TcpProxy proxy = new TcpProxy(m.group(1), m.group(2) == null ? 5432 : Integer.parseInt(m.group(2)));
        try {
            return new ProxiedServer(name, proxy, m.group(3), connectionTimeout, settings);
        } catch (RuntimeException e) {
            proxy.close();
            throw e;
        }
    }

    @Override
    public void close() {
        super.close();
        proxy.close();
    }
}
