package io.cybernetes.auth.internal;

import io.cybernetes.auth.UserInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Static bearer tokens: the admin token made at first start (group
 * {@code system:masters}) and the lines of a tokens file in kube-apiserver's format,
 * {@code token,user,uid,"group1,group2"}. The file is read again when its modification
 * time or size changes (looked at no more than once a second), so adding a team needs
 * no restart. Tokens are looked up by their SHA-256, so no comparison leaks timing.
 */
final class StaticTokens {

    private static final Logger log = LoggerFactory.getLogger(StaticTokens.class);
    private static final long CHECK_INTERVAL_NANOS = 1_000_000_000L;

    private final String adminDigest;
    private final Path file;
    private volatile Map<String, UserInfo> byDigest = Map.of();
    private volatile FileTime loadedTime;
    private volatile long loadedSize = -1;
    private volatile long lastCheck;

    StaticTokens(String adminToken, Path file) {
        this.adminDigest = digest(adminToken);
        this.file = file;
        lastCheck = System.nanoTime() - CHECK_INTERVAL_NANOS;
        reloadIfChanged();
    }

    Optional<UserInfo> authenticate(String token) {
        String d = digest(token);
        if (MessageDigest.isEqual(d.getBytes(StandardCharsets.US_ASCII), adminDigest.getBytes(StandardCharsets.US_ASCII))) {
            return Optional.of(UserInfo.authenticated("admin", "admin", List.of(UserInfo.MASTERS)));
        }
        if (System.nanoTime() - lastCheck >= CHECK_INTERVAL_NANOS) {
            reloadIfChanged();
        }
        return Optional.ofNullable(byDigest.get(d));
    }

    synchronized void reloadIfChanged() {
        lastCheck = System.nanoTime();
        try {
            FileTime time = Files.getLastModifiedTime(file);
            long size = Files.size(file);
            if (time.equals(loadedTime) && size == loadedSize) {
                return;
            }
            byDigest = parse(Files.readAllLines(file, StandardCharsets.UTF_8));
            loadedTime = time;
            loadedSize = size;
            log.info("Loaded {} static tokens from {}", byDigest.size(), file);
        } catch (NoSuchFileException e) {
            // no file (or it was removed): no static tokens but the admin's
            byDigest = Map.of();
            loadedTime = null;
            loadedSize = -1;
        } catch (IOException e) {
            log.warn("Could not read the tokens file {}; keeping the tokens read before: {}", file, e.toString());
        }
    }

    private Map<String, UserInfo> parse(List<String> lines) {
        Map<String, UserInfo> out = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            List<String> f = csv(line);
            if (f.size() < 3 || f.get(0).isEmpty() || f.get(1).isEmpty()) {
                log.warn("{} line {}: expected token,user,uid[,\"groups\"]; line skipped", file, i + 1);
                continue;
            }
            List<String> groups = new ArrayList<>();
            if (f.size() > 3) {
                for (String g : f.get(3).split(",")) {
                    if (!g.strip().isEmpty()) {
                        groups.add(g.strip());
                    }
                }
            }
            out.put(digest(f.get(0)), UserInfo.authenticated(f.get(1), f.get(2), groups));
        }
        return Map.copyOf(out);
    }

    /** One CSV record: fields split on commas outside double quotes, "" inside quotes being a quote. */
    static List<String> csv(String line) {
        List<String> fields = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    cur.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    cur.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                fields.add(cur.toString().strip());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        fields.add(cur.toString().strip());
        return fields;
    }

    /** A token's SHA-256, in hex: what token lookups and caches key by, so the token itself is kept nowhere. */
    static String digest(String token) {
        try {
            return java.util.HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JRE", e);
        }
    }
}
