package io.cybernetes.api;

/**
 * Strings as Go's {@code fmt} prints them in Kubernetes' messages: {@link #quote} is
 * {@code %q} ({@code strconv.Quote}), which escapes quotes, backslashes, control and
 * unprintable characters, so that a name a client chose (a field called {@code "a\r\nb"})
 * reads the same as in kube-apiserver's message and never breaks a header it goes into.
 */
public final class GoStrings {

    private GoStrings() {
    }

    /** The string in double quotes, escaped as Go's {@code strconv.Quote} escapes it. */
    public static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        s.codePoints().forEach(cp -> {
            switch (cp) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case 0x07 -> b.append("\\a");
                case '\b' -> b.append("\\b");
                case '\f' -> b.append("\\f");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                case 0x0b -> b.append("\\v");
                default -> {
                    if (printable(cp)) {
                        b.appendCodePoint(cp);
                    } else if (cp < 0x80) {
                        b.append(String.format("\\x%02x", cp));
                    } else if (cp < 0x10000) {
                        b.append(String.format("\\u%04x", cp));
                    } else {
                        b.append(String.format("\\U%08x", cp));
                    }
                }
            }
        });
        return b.append('"').toString();
    }

    /** Go's {@code unicode.IsPrint}: letters, marks, numbers, punctuation, symbols and the ASCII space. */
    private static boolean printable(int cp) {
        if (cp == ' ') {
            return true;
        }
        return switch (Character.getType(cp)) {
            case Character.UNASSIGNED, Character.CONTROL, Character.FORMAT, Character.PRIVATE_USE,
                    Character.SURROGATE, Character.SPACE_SEPARATOR, Character.LINE_SEPARATOR,
                    Character.PARAGRAPH_SEPARATOR -> false;
            default -> true;
        };
    }
}
