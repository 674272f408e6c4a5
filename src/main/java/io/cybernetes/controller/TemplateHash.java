package io.cybernetes.controller;

import tools.jackson.databind.JsonNode;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * FNV-1a (32 bit) over a JSON tree in a canonical order (object fields sorted by name),
 * written in the letters Kubernetes uses for generated names — no vowels, no 0, 1 and 3 —
 * so a hash never spells a word.
 */
public final class TemplateHash {

    private static final String ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
    private int hash = 0x811c9dc5;

    /** The hash of a pod template and a collision count (0: none), as a workload's pods and revisions are named. */
    public static String of(JsonNode template, int collisionCount) {
        TemplateHash h = new TemplateHash();
        h.add(template);
        if (collisionCount > 0) {
            h.addInt(collisionCount);
        }
        return h.safeEncoded();
    }

    void add(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            addByte('n');
        } else if (node.isObject()) {
            List<String> names = new ArrayList<>(node.propertyNames());
            Collections.sort(names);
            addByte('{');
            for (String name : names) {
                addString(name);
                add(node.get(name));
            }
            addByte('}');
        } else if (node.isArray()) {
            addByte('[');
            for (JsonNode item : node) {
                add(item);
            }
            addByte(']');
        } else {
            addByte(node.isString() ? 's' : 'v');
            addString(node.isString() ? node.asString() : node.toString());
        }
    }

    void addInt(int value) {
        for (int i = 0; i < 4; i++) {
            addByte((value >>> (8 * i)) & 0xff);
        }
    }

    private void addString(String s) {
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            addByte(b & 0xff);
        }
        addByte(0);
    }

    private void addByte(int b) {
        hash ^= b;
        hash *= 0x01000193;
    }

    /** The unsigned decimal value, each digit mapped into the safe alphabet. */
    String safeEncoded() {
        String digits = Long.toString(Integer.toUnsignedLong(hash));
        StringBuilder sb = new StringBuilder(digits.length());
        for (char c : digits.toCharArray()) {
            sb.append(ALPHABET.charAt(c % ALPHABET.length()));
        }
        return sb.toString();
    }
}
