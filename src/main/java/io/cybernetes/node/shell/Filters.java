package io.cybernetes.node.shell;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/** The text filters of the simulated shell, on files or their input: grep, head, tail, wc, sort. */
final class Filters {

    private Filters() {
    }

    /** The lines of the files named, or of the input when none is. Null (after a message) when one is missing. */
    private static List<String> lines(String cmd, List<String> names, InputStream in, OutputStream err,
                                      ContainerFiles files) throws IOException {
        StringBuilder text = new StringBuilder();
        if (names.isEmpty()) {
            text.append(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        for (String n : names) {
            var content = files.read(n.startsWith("/") ? n : "/" + n);
            if (content.isEmpty()) {
                Shell.write(err, cmd + ": " + n + ": No such file or directory\n");
                return null;
            }
            text.append(content.get());
        }
        String t = text.toString();
        if (t.isEmpty()) {
            return new ArrayList<>();
        }
        if (t.endsWith("\n")) {
            t = t.substring(0, t.length() - 1);
        }
        return new ArrayList<>(Arrays.asList(t.split("\n", -1)));
    }

    private static void print(OutputStream out, List<String> lines) throws IOException {
        StringBuilder sb = new StringBuilder();
        lines.forEach(l -> sb.append(l).append('\n'));
        Shell.write(out, sb.toString());
    }

    static int grep(List<String> args, InputStream in, OutputStream out, OutputStream err, ContainerFiles files)
            throws IOException {
        boolean ignoreCase = false;
        boolean invert = false;
        boolean count = false;
        boolean fixed = false;
        List<String> rest = new ArrayList<>();
        for (String a : args) {
            if (a.startsWith("-") && a.length() > 1 && rest.isEmpty()) {
                ignoreCase |= a.contains("i");
                invert |= a.contains("v");
                count |= a.contains("c");
                fixed |= a.contains("F");
            } else {
                rest.add(a);
            }
        }
        if (rest.isEmpty()) {
            Shell.write(err, "Usage: grep [-icvF] PATTERN [FILE]...\n");
            return 2;
        }
        Pattern p;
        try {
            String expr = fixed ? Pattern.quote(rest.get(0)) : rest.get(0);
            p = Pattern.compile(expr, ignoreCase ? Pattern.CASE_INSENSITIVE : 0);
        } catch (PatternSyntaxException e) {
            Shell.write(err, "grep: bad regex '" + rest.get(0) + "'\n");
            return 2;
        }
        List<String> lines = lines("grep", rest.subList(1, rest.size()), in, err, files);
        if (lines == null) {
            return 2;
        }
        List<String> hits = new ArrayList<>();
        for (String l : lines) {
            if (p.matcher(l).find() != invert) {
                hits.add(l);
            }
        }
        if (count) {
            Shell.write(out, hits.size() + "\n");
        } else {
            print(out, hits);
        }
        return hits.isEmpty() ? 1 : 0;
    }

    static int headTail(String cmd, List<String> args, InputStream in, OutputStream out, OutputStream err,
                        ContainerFiles files) throws IOException {
        int n = 10;
        List<String> names = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            try {
                if (a.equals("-n") && i + 1 < args.size()) {
                    n = Integer.parseInt(args.get(++i));
                } else if (a.matches("-n?\\d+")) {
                    n = Integer.parseInt(a.replaceAll("\\D", ""));
                } else {
                    names.add(a);
                }
            } catch (NumberFormatException e) {
                Shell.write(err, cmd + ": invalid number '" + a + "'\n");
                return 1;
            }
        }
        List<String> lines = lines(cmd, names, in, err, files);
        if (lines == null) {
            return 1;
        }
        int k = Math.min(n, lines.size());
        print(out, cmd.equals("head") ? lines.subList(0, k) : lines.subList(lines.size() - k, lines.size()));
        return 0;
    }

    static int wc(List<String> args, InputStream in, OutputStream out, OutputStream err, ContainerFiles files)
            throws IOException {
        boolean onlyLines = args.contains("-l");
        List<String> names = args.stream().filter(a -> !a.startsWith("-")).toList();
        List<String> lines = lines("wc", names, in, err, files);
        if (lines == null) {
            return 1;
        }
        long words = lines.stream().mapToLong(l -> l.isBlank() ? 0 : l.trim().split("\\s+").length).sum();
        long bytes = lines.stream().mapToLong(l -> l.getBytes(StandardCharsets.UTF_8).length + 1L).sum();
        Shell.write(out, onlyLines ? lines.size() + "\n"
                : String.format(Locale.ROOT, "%9d %9d %9d%n", lines.size(), words, bytes));
        return 0;
    }

    static int sort(List<String> args, InputStream in, OutputStream out, OutputStream err, ContainerFiles files)
            throws IOException {
        boolean reverse = args.contains("-r");
        List<String> names = args.stream().filter(a -> !a.startsWith("-")).toList();
        List<String> lines = lines("sort", names, in, err, files);
        if (lines == null) {
            return 2;
        }
        List<String> sorted = new ArrayList<>(lines);
        sorted.sort(reverse ? java.util.Comparator.reverseOrder() : java.util.Comparator.naturalOrder());
        print(out, sorted);
        return 0;
    }
}
