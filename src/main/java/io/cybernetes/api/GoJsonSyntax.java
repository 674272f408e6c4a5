package io.cybernetes.api;

/**
 * The syntax error Go's {@code encoding/json} reports for a body, in its own words
 * ({@code invalid character 'b' looking for beginning of object key string},
 * {@code unexpected end of JSON input}): a scanner with Go's states, so that a client
 * sending bad JSON reads what kube-apiserver would tell it, not a Java parser's text.
 * Go accepts bytes that are not UTF-8 inside strings (they become U+FFFD), so they are no
 * error here either.
 */
public final class GoJsonSyntax {

    private final byte[] data;
    private int pos;

    private GoJsonSyntax(byte[] data) {
        this.data = data;
    }

    /** Go's syntax error for the bytes, or null when they are one well-formed JSON value. */
    public static String errorOf(byte[] data) {
        GoJsonSyntax s = new GoJsonSyntax(data);
        try {
            s.value();
            s.space();
            if (s.pos < data.length) {
                return s.invalid("after top-level value");
            }
            return null;
        } catch (Syntax e) {
            return e.getMessage();
        }
    }

    private static final class Syntax extends RuntimeException {
        Syntax(String message) {
            super(message, null, false, false);
        }
    }

    private String invalid(String context) {
        return "invalid character " + quoteChar(data[pos]) + " " + context;
    }

    private Syntax error(String context) {
        return pos >= data.length ? new Syntax("unexpected end of JSON input") : new Syntax(invalid(context));
    }

    /** Go's quoteChar: the byte as a one-character Go string literal between single quotes. */
    private static String quoteChar(byte b) {
        int c = b & 0xff;
        if (c == '\'') {
            return "'\\''";
        }
        if (c == '"') {
            return "'\"'";
        }
        String q = GoStrings.quote(String.valueOf((char) c));
        return "'" + q.substring(1, q.length() - 1) + "'";
    }

    private int peek() {
        return pos < data.length ? data[pos] & 0xff : -1;
    }

    private void space() {
        while (pos < data.length && (data[pos] == ' ' || data[pos] == '\t' || data[pos] == '\r' || data[pos] == '\n')) {
            pos++;
        }
    }

    private void value() {
        space();
        switch (peek()) {
            case '{' -> object();
            case '[' -> array();
            case '"' -> string();
            case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9' -> number();
            case 't' -> literal("true");
            case 'f' -> literal("false");
            case 'n' -> literal("null");
            default -> throw error("looking for beginning of value");
        }
    }

    private void object() {
        pos++;
        space();
        if (peek() == '}') {
            pos++;
            return;
        }
        while (true) {
            space();
            if (peek() != '"') {
                throw error("looking for beginning of object key string");
            }
            string();
            space();
            if (peek() != ':') {
                throw error("after object key");
            }
            pos++;
            value();
            space();
            if (peek() == ',') {
                pos++;
                continue;
            }
            if (peek() == '}') {
                pos++;
                return;
            }
            throw error("after object key:value pair");
        }
    }

    private void array() {
        pos++;
        space();
        if (peek() == ']') {
            pos++;
            return;
        }
        while (true) {
            value();
            space();
            if (peek() == ',') {
                pos++;
                continue;
            }
            if (peek() == ']') {
                pos++;
                return;
            }
            throw error("after array element");
        }
    }

    private void string() {
        pos++;
        while (true) {
            int c = peek();
            if (c < 0) {
                throw error("in string literal");
            }
            if (c == '"') {
                pos++;
                return;
            }
            if (c < 0x20) {
                throw error("in string literal");
            }
            pos++;
            if (c == '\\') {
                int e = peek();
                switch (e) {
                    case 'b', 'f', 'n', 'r', 't', '\\', '/', '"' -> pos++;
                    case 'u' -> {
                        pos++;
                        for (int i = 0; i < 4; i++) {
                            if (!hex(peek())) {
                                throw error("in \\u hexadecimal character escape");
                            }
                            pos++;
                        }
                    }
                    default -> throw error("in string escape code");
                }
            }
        }
    }

    private static boolean hex(int c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    private static boolean digit(int c) {
        return c >= '0' && c <= '9';
    }

    private void number() {
        if (peek() == '-') {
            pos++;
            if (!digit(peek())) {
                throw error("in numeric literal");
            }
        }
        if (peek() == '0') {
            pos++;
        } else {
            while (digit(peek())) {
                pos++;
            }
        }
        if (peek() == '.') {
            pos++;
            if (!digit(peek())) {
                throw error("after decimal point in numeric literal");
            }
            while (digit(peek())) {
                pos++;
            }
        }
        if (peek() == 'e' || peek() == 'E') {
            pos++;
            if (peek() == '+' || peek() == '-') {
                pos++;
            }
            if (!digit(peek())) {
                throw error("in exponent of numeric literal");
            }
            while (digit(peek())) {
                pos++;
            }
        }
    }

    private void literal(String word) {
        pos++;
        for (int i = 1; i < word.length(); i++) {
            if (peek() != word.charAt(i)) {
                throw error("in literal " + word + " (expecting " + quoteChar((byte) word.charAt(i)) + ")");
            }
            pos++;
        }
    }

    /**
     * Go's summary of a body in a decoding error: {@code <empty>}, the first 30 bytes as
     * text when it begins as an object, else as hex; {@code " ..."} when there was more.
     */
    public static String summary(byte[] data) {
        if (data.length == 0) {
            return "<empty>";
        }
        int n = Math.min(30, data.length);
        String head;
        if (data[0] == '{') {
            head = new String(data, 0, n, java.nio.charset.StandardCharsets.UTF_8);
        } else {
            StringBuilder hex = new StringBuilder();
            for (int i = 0; i < n; i++) {
                hex.append(String.format("%02x", data[i] & 0xff));
            }
            head = hex.toString();
        }
        return data.length > 30 ? head + " ..." : head;
    }
}
