package io.cybernetes.node.shell;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Splits a shell line into pipelines and the operators between them ({@code ;} and a line
 * end, {@code &&}, {@code ||}; {@code &} runs in turn, there being no background), as sh
 * reads them: single quotes keep everything, double quotes keep all but {@code $}, a
 * backslash keeps the next character, {@code #} starts a comment. Redirections
 * ({@code >}, {@code >>}, {@code <}, {@code N>&M}, with an optional descriptor before them)
 * become {@link Redirect} tokens in their command. Variables are filled in when the command
 * runs ({@link #expand}), so {@code $?} sees the command before.
 */
final class Parser {

    /** Markers of the operators in the token list (no word holds these characters). */
    static final String SEQUENCE = "\uE001;";
    static final String AND = "\uE001&&";
    static final String OR = "\uE001||";
    static final String PIPE = "\uE001|";
    /** A $ that is not to be expanded (quoted or escaped). */
    private static final char KEPT_DOLLAR = '\uE000';
    /** The start of a redirection token: descriptor, operator and target, separated by spaces. */
    private static final String REDIRECT = "\uE002";
    private static final String WORD_ENDS = ";&|<>\n";

    /** One redirection of a command: {@code fd} to or from {@code target} ({@code op}: >, >>, <, >&, <&). */
    record Redirect(int fd, String op, String target) {
        /** Whether {@code token} (from {@link #split}) is a redirection rather than a word. */
        static boolean is(String token) {
            return token.startsWith(REDIRECT);
        }

        static Redirect of(String token) {
            String[] p = token.substring(REDIRECT.length()).split(" ", 3);
            return new Redirect(Integer.parseInt(p[0]), p[1], p[2]);
        }
    }

    private Parser() {
    }

    static boolean isOperator(String token) {
        return token.equals(SEQUENCE) || token.equals(AND) || token.equals(OR);
    }

    /** The pipelines (words, with {@link #PIPE} between commands) and operators, each operator a list of its own. */
    static List<List<String>> split(String text) {
        List<List<String>> out = new ArrayList<>();
        List<String> pipeline = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '\'') {
                int end = text.indexOf('\'', i + 1);
                if (end < 0) {
                    throw new IllegalArgumentException("unterminated quoted string");
                }
                word.append(text.substring(i + 1, end).replace('$', KEPT_DOLLAR));
                inWord = true;
                i = end + 1;
            } else if (c == '"') {
                i++;
                while (true) {
                    if (i >= text.length()) {
                        throw new IllegalArgumentException("unterminated quoted string");
                    }
                    char d = text.charAt(i);
                    if (d == '"') {
                        break;
                    }
                    if (d == '\\' && i + 1 < text.length() && "$`\"\\\n".indexOf(text.charAt(i + 1)) >= 0) {
                        char next = text.charAt(++i);
                        word.append(next == '$' ? KEPT_DOLLAR : next);
                    } else {
                        word.append(d);
                    }
                    i++;
                }
                inWord = true;
                i++;
            } else if (c == '\\' && i + 1 < text.length()) {
                char next = text.charAt(i + 1);
                if (next != '\n') {
                    word.append(next == '$' ? KEPT_DOLLAR : next);
                    inWord = true;
                }
                i += 2;
            } else if (c == '#' && !inWord) {
                while (i < text.length() && text.charAt(i) != '\n') {
                    i++;
                }
            } else if (Character.isWhitespace(c) && c != '\n') {
                inWord = flush(word, inWord, pipeline);
                i++;
            } else if (c == '>' || c == '<') {
                String digits = word.toString();
                boolean fd = inWord && !digits.isEmpty() && digits.chars().allMatch(Character::isDigit);
                if (fd) {
                    word.setLength(0);
                    inWord = false;
                } else {
                    inWord = flush(word, inWord, pipeline);
                }
                i = redirect(text, i, fd ? Integer.parseInt(digits) : c == '<' ? 0 : 1, pipeline);
            } else if (c == ';' || c == '\n' || c == '&' || c == '|') {
                inWord = flush(word, inWord, pipeline);
                boolean doubled = i + 1 < text.length() && text.charAt(i + 1) == c && (c == '&' || c == '|');
                if (c == '|' && !doubled) {
                    if (pipeline.isEmpty() || pipeline.get(pipeline.size() - 1).equals(PIPE)) {
                        throw new IllegalArgumentException("unexpected \"|\"");
                    }
                    pipeline.add(PIPE);
                } else {
                    String op = !doubled ? SEQUENCE : c == '&' ? AND : OR;
                    end(out, pipeline, op);
                    pipeline = new ArrayList<>();
                }
                i += doubled ? 2 : 1;
            } else {
                word.append(c);
                inWord = true;
                i++;
            }
        }
        flush(word, inWord, pipeline);
        end(out, pipeline, null);
        return out;
    }

    /** Reads the redirection at {@code i} into {@code pipeline}; returns where the line goes on. */
    private static int redirect(String text, int i, int fd, List<String> pipeline) {
        StringBuilder op = new StringBuilder().append(text.charAt(i++));
        if (i < text.length() && (text.charAt(i) == '&' || (op.charAt(0) == '>' && text.charAt(i) == '>'))) {
            op.append(text.charAt(i++));
        }
        while (i < text.length() && (text.charAt(i) == ' ' || text.charAt(i) == '\t')) {
            i++;
        }
        int start = i;
        while (i < text.length() && !Character.isWhitespace(text.charAt(i)) && WORD_ENDS.indexOf(text.charAt(i)) < 0) {
            i++;
        }
        if (start == i) {
            throw new IllegalArgumentException(i >= text.length() || text.charAt(i) == '\n' ? "unexpected newline"
                    : "unexpected \"" + text.charAt(i) + "\"");
        }
        pipeline.add(REDIRECT + fd + " " + op + " " + text.substring(start, i));
        return i;
    }

    private static boolean flush(StringBuilder word, boolean inWord, List<String> pipeline) {
        if (inWord) {
            pipeline.add(word.toString());
            word.setLength(0);
        }
        return false;
    }

    private static void end(List<List<String>> out, List<String> pipeline, String op) {
        if (!pipeline.isEmpty()) {
            if (pipeline.get(pipeline.size() - 1).equals(PIPE)) {
                throw new IllegalArgumentException("unexpected end after \"|\"");
            }
            out.add(pipeline);
        } else if (op != null && !op.equals(SEQUENCE)) {
            throw new IllegalArgumentException("unexpected \"" + op.substring(1) + "\"");
        }
        if (op != null) {
            out.add(List.of(op));
        }
    }

    /** The word with {@code $NAME}, {@code ${NAME}}, {@code $?} and {@code $$} filled in from {@code vars}. */
    static String expand(String word, UnaryOperator<String> vars) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < word.length(); i++) {
            char c = word.charAt(i);
            if (c != '$' || i + 1 >= word.length()) {
                sb.append(c == KEPT_DOLLAR ? '$' : c);
                continue;
            }
            char n = word.charAt(i + 1);
            if (n == '?' || n == '$') {
                sb.append(vars.apply(String.valueOf(n)));
                i++;
            } else if (n == '{') {
                int end = word.indexOf('}', i);
                if (end < 0) {
                    sb.append(c);
                    continue;
                }
                sb.append(vars.apply(word.substring(i + 2, end)));
                i = end;
            } else if (Character.isLetter(n) || n == '_') {
                int j = i + 1;
                while (j < word.length() && (Character.isLetterOrDigit(word.charAt(j)) || word.charAt(j) == '_')) {
                    j++;
                }
                sb.append(vars.apply(word.substring(i + 1, j)));
                i = j - 1;
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
