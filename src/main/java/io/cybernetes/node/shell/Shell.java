package io.cybernetes.node.shell;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The small shell a simulated container answers {@code exec} and {@code attach} with, as a
 * busybox {@code sh} would for the commands people inspect pods with: {@code env} /
 * {@code printenv}, {@code hostname}, {@code cat}, {@code ls}, {@code pwd}, {@code cd},
 * {@code echo}, {@code sleep}, {@code exit N}, {@code true}/{@code false}, {@code whoami},
 * {@code id}, {@code date}, {@code uname}, {@code ps}, {@code grep}, {@code head},
 * {@code tail}, {@code wc}, {@code sort}, {@code export}, and {@code sh}/{@code bash} with
 * {@code -c} or reading commands from its input. Lines hold {@code ;}, {@code &&},
 * {@code ||} and {@code |}, quotes, {@code $VAR}, {@code ${VAR}} and {@code $?}, and
 * redirections between the standard streams, to {@code /dev/null} and from files (the
 * container's files are read-only: writing one is refused as on a read-only mount). Anything
 * else ends with 127 and {@code sh: NAME: not found}. Over a terminal it echoes what is
 * typed, edits the line (backspace, Ctrl-C, Ctrl-D) and prompts.
 */
public final class Shell {

    private static final byte[] NEWLINE = {'\n'};

    /** {@code exit} unwinds to the shell that runs it. */
    private static final class Exit extends RuntimeException {
        final int code;

        Exit(int code) {
            super(null, null, false, false);
            this.code = code;
        }
    }

    private final Map<String, String> env;
    private final ContainerFiles files;
    private final String process;
    private final boolean tty;
    private String cwd = "/";
    private int last;

    /**
     * @param process what {@code ps} shows as the container's first process
     * @param tty     whether the session has a terminal (echo, prompt, line editing, CR LF)
     */
    public Shell(Map<String, String> env, ContainerFiles files, String process, boolean tty) {
        this.env = new LinkedHashMap<>(env);
        this.files = files;
        this.process = process;
        this.tty = tty;
    }

    /** Runs the command (a shell reading its input when empty) and returns its exit code. */
    public int exec(List<String> argv, InputStream in, OutputStream out, OutputStream err) throws IOException {
        OutputStream o = tty ? new CrLf(out) : out;
        OutputStream e = tty ? o : err;
        try {
            if (argv.isEmpty()) {
                return interactive(in, o, e);
            }
            return run(argv, in, o, e);
        } catch (Exit x) {
            return x.code;
        } finally {
            o.flush();
            e.flush();
        }
    }

    // ---- running

    private int interactive(InputStream in, OutputStream out, OutputStream err) throws IOException {
        LineReader reader = new LineReader(in, tty ? out : null);
        while (true) {
            if (tty) {
                write(out, cwd + " # ");
                out.flush();
            }
            String line = reader.readLine();
            if (line == null) {
                if (tty) {
                    write(out, "\n");
                }
                return last;
            }
            try {
                script(line, in, out, err);
            } catch (Exit x) {
                return x.code;
            }
            out.flush();
            err.flush();
        }
    }

    /** Runs a script (a line or several); returns the last command's code. */
    int script(String text, InputStream in, OutputStream out, OutputStream err) throws IOException {
        List<List<String>> tokens;
        try {
            tokens = Parser.split(text);
        } catch (IllegalArgumentException e) {
            write(err, "sh: syntax error: " + e.getMessage() + "\n");
            return last = 2;
        }
        String op = Parser.SEQUENCE;
        for (List<String> pipeline : tokens) {
            if (pipeline.size() == 1 && Parser.isOperator(pipeline.get(0))) {
                op = pipeline.get(0);
                continue;
            }
            boolean skip = (op.equals(Parser.AND) && last != 0) || (op.equals(Parser.OR) && last == 0);
            if (!skip) {
                last = pipeline(pipeline, in, out, err);
            }
            op = Parser.SEQUENCE;
        }
        return last;
    }

    private int pipeline(List<String> words, InputStream in, OutputStream out, OutputStream err) throws IOException {
        List<List<String>> commands = new ArrayList<>();
        List<String> current = new ArrayList<>();
        for (String w : words) {
            if (w.equals(Parser.PIPE)) {
                commands.add(current);
                current = new ArrayList<>();
            } else {
                current.add(w);
            }
        }
        commands.add(current);
        InputStream input = in;
        int code = 0;
        for (int i = 0; i < commands.size(); i++) {
            boolean lastOne = i == commands.size() - 1;
            ByteArrayOutputStream buffer = lastOne ? null : new ByteArrayOutputStream();
            List<String> plain = new ArrayList<>();
            List<Parser.Redirect> redirects = new ArrayList<>();
            for (String w : commands.get(i)) {
                if (Parser.Redirect.is(w)) {
                    redirects.add(Parser.Redirect.of(w));
                } else {
                    plain.add(w);
                }
            }
            Streams streams = new Streams(input, lastOne ? out : buffer, err);
            String refused = redirects.isEmpty() ? null : redirect(streams, redirects);
            if (refused != null) {
                write(err, refused);
                code = 1;
            } else {
                List<String> argv = expand(plain);
                code = argv.isEmpty() ? 0 : run(argv, streams.in, streams.out, streams.err);
            }
            if (!lastOne) {
                input = new ByteArrayInputStream(buffer.toByteArray());
            }
        }
        return code;
    }

    /** A command's standard streams, as its redirections leave them. */
    private static final class Streams {
        InputStream in;
        OutputStream out;
        OutputStream err;

        Streams(InputStream in, OutputStream out, OutputStream err) {
            this.in = in;
            this.out = out;
            this.err = err;
        }
    }

    /** Applies the redirections in order; returns sh's message when one cannot be made. */
    private String redirect(Streams s, List<Parser.Redirect> redirects) {
        for (Parser.Redirect r : redirects) {
            String target = Parser.expand(r.target(), this::variable);
            if (r.fd() > 2) {
                return "sh: " + r.fd() + ": bad file descriptor\n";
            }
            if (r.op().endsWith("&")) {
                if (target.equals("-")) {
                    if (r.fd() == 0) {
                        s.in = InputStream.nullInputStream();
                    } else {
                        setOutput(s, r.fd(), OutputStream.nullOutputStream());
                    }
                    continue;
                }
                int from = parse(target, -1);
                if (from < 0 || from > 2) {
                    return "sh: " + target + ": bad file descriptor\n";
                }
                if (r.fd() > 0 && from > 0) {
                    setOutput(s, r.fd(), from == 1 ? s.out : s.err);
                }
                continue;
            }
            String p = path(target);
            if (r.op().equals("<")) {
                if (p.equals("/dev/null")) {
                    s.in = InputStream.nullInputStream();
                    continue;
                }
                var content = files.read(p);
                if (content.isEmpty()) {
                    return "sh: can't open '" + target + "': No such file or directory\n";
                }
                s.in = new ByteArrayInputStream(content.get().getBytes(StandardCharsets.UTF_8));
            } else if (p.equals("/dev/null")) {
                setOutput(s, r.fd(), OutputStream.nullOutputStream());
            } else if (r.fd() == 0) {
                return "sh: can't create " + target + ": Bad file descriptor\n";
            } else {
                return "sh: can't create " + target + ": Read-only file system\n";
            }
        }
        return null;
    }

    private static void setOutput(Streams s, int fd, OutputStream to) {
        if (fd == 1) {
            s.out = to;
        } else {
            s.err = to;
        }
    }

    /** The words with variables filled in; quotes were kept as markers by the parser. */
    private List<String> expand(List<String> raw) {
        List<String> out = new ArrayList<>();
        for (String w : raw) {
            out.add(Parser.expand(w, this::variable));
        }
        // leading NAME=value words set variables (for this shell: there are no child processes)
        while (!out.isEmpty() && out.get(0).matches("[A-Za-z_][A-Za-z0-9_]*=.*")) {
            String a = out.remove(0);
            env.put(a.substring(0, a.indexOf('=')), a.substring(a.indexOf('=') + 1));
        }
        return out;
    }

    private String variable(String name) {
        return switch (name) {
            case "?" -> Integer.toString(last);
            case "$" -> "1";
            case "PWD" -> cwd;
            default -> env.getOrDefault(name, "");
        };
    }

    private int run(List<String> argv, InputStream in, OutputStream out, OutputStream err) throws IOException {
        String name = argv.get(0);
        String cmd = name.contains("/") ? name.substring(name.lastIndexOf('/') + 1) : name;
        List<String> args = argv.subList(1, argv.size());
        return switch (cmd) {
            case "sh", "bash", "ash" -> sh(args, in, out, err);
            case "echo" -> echo(args, out);
            case "env", "printenv" -> printenv(cmd, args, out);
            case "hostname" -> print(out, env.getOrDefault("HOSTNAME", ""));
            case "cat" -> cat(args, in, out, err);
            case "ls" -> ls(args, out, err);
            case "pwd" -> print(out, cwd);
            case "cd" -> cd(args, err);
            case "sleep" -> sleep(args, err);
            case "exit" -> throw new Exit(args.isEmpty() ? last : parse(args.get(0), 2) & 0xFF);
            case "true" -> 0;
            case "false" -> 1;
            case "whoami" -> print(out, "root");
            case "id" -> print(out, "uid=0(root) gid=0(root) groups=0(root)");
            case "date" -> print(out, ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter
                    .ofPattern("EEE MMM ppd HH:mm:ss 'UTC' yyyy", Locale.ROOT)));
            case "uname" -> print(out, args.contains("-a") ? "Linux " + env.getOrDefault("HOSTNAME", "")
                    + " 6.1.0-cybernetes #1 SMP x86_64 GNU/Linux" : "Linux");
            case "ps" -> print(out, "PID   USER     TIME  COMMAND\n    1 root      0:00 " + process);
            case "export" -> export(args);
            case "grep" -> Filters.grep(args, in, out, err, files);
            case "head", "tail" -> Filters.headTail(cmd, args, in, out, err, files);
            case "wc" -> Filters.wc(args, in, out, err, files);
            case "sort" -> Filters.sort(args, in, out, err, files);
            default -> {
                write(err, "sh: " + name + ": not found\n");
                yield 127;
            }
        };
    }

    private int sh(List<String> args, InputStream in, OutputStream out, OutputStream err) throws IOException {
        if (!args.isEmpty() && args.get(0).equals("-c")) {
            if (args.size() < 2) {
                write(err, "sh: -c requires an argument\n");
                return 2;
            }
            Shell child = new Shell(env, files, process, false);
            child.cwd = cwd;
            try {
                return child.script(args.get(1), in, out, err);
            } catch (Exit x) {
                return x.code;
            }
        }
        Shell child = new Shell(env, files, process, tty);
        child.cwd = cwd;
        try {
            return child.interactive(in, out, err);
        } catch (Exit x) {
            return x.code;
        }
    }

    private static int echo(List<String> args, OutputStream out) throws IOException {
        boolean newline = true;
        int from = 0;
        if (!args.isEmpty() && args.get(0).equals("-n")) {
            newline = false;
            from = 1;
        }
        write(out, String.join(" ", args.subList(from, args.size())) + (newline ? "\n" : ""));
        return 0;
    }

    private int printenv(String cmd, List<String> args, OutputStream out) throws IOException {
        if (cmd.equals("printenv") && !args.isEmpty()) {
            int code = 0;
            for (String n : args) {
                if (env.containsKey(n)) {
                    write(out, env.get(n) + "\n");
                } else {
                    code = 1;
                }
            }
            return code;
        }
        StringBuilder sb = new StringBuilder();
        env.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        write(out, sb.toString());
        return 0;
    }

    private int export(List<String> args) {
        for (String a : args) {
            int eq = a.indexOf('=');
            if (eq > 0) {
                env.put(a.substring(0, eq), a.substring(eq + 1));
            }
        }
        return 0;
    }

    private String path(String p) {
        return ContainerFiles.normalize(p.startsWith("/") ? p : cwd + "/" + p);
    }

    private int cat(List<String> args, InputStream in, OutputStream out, OutputStream err) throws IOException {
        if (args.isEmpty() || args.equals(List.of("-"))) {
            in.transferTo(out);
            return 0;
        }
        int code = 0;
        for (String a : args) {
            String p = path(a);
            if (files.isDirectory(p)) {
                write(err, "cat: read error: Is a directory\n");
                code = 1;
                continue;
            }
            var content = files.read(p);
            if (content.isEmpty()) {
                write(err, "cat: can't open '" + a + "': No such file or directory\n");
                code = 1;
                continue;
            }
            write(out, content.get());
        }
        return code;
    }

    private int ls(List<String> args, OutputStream out, OutputStream err) throws IOException {
        boolean longFormat = false;
        boolean all = false;
        List<String> paths = new ArrayList<>();
        for (String a : args) {
            if (a.startsWith("-") && a.length() > 1) {
                longFormat |= a.contains("l");
                all |= a.contains("a");
            } else {
                paths.add(a);
            }
        }
        if (paths.isEmpty()) {
            paths.add(".");
        }
        int code = 0;
        StringBuilder sb = new StringBuilder();
        for (String a : paths) {
            String p = path(a);
            if (!files.exists(p)) {
                write(err, "ls: " + a + ": No such file or directory\n");
                code = 1;
                continue;
            }
            if (!files.isDirectory(p)) {
                sb.append(longFormat ? entry(p, a) : a).append('\n');
                continue;
            }
            if (paths.size() > 1) {
                sb.append(a).append(":\n");
            }
            List<String> names = new ArrayList<>();
            if (all) {
                names.add(".");
                names.add("..");
            }
            names.addAll(files.list(p));
            for (String n : names) {
                sb.append(longFormat ? entry(ContainerFiles.normalize(p + "/" + n), n) : n).append('\n');
            }
        }
        write(out, sb.toString());
        return code;
    }

    private String entry(String path, String name) {
        boolean dir = files.isDirectory(path);
        String when = ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("MMM ppd HH:mm",
                Locale.ROOT));
        return String.format("%s %4d root     root     %8d %s %s", dir ? "drwxr-xr-x" : "-rw-r--r--", dir ? 2 : 1,
                dir ? 4096 : files.size(path), when, name);
    }

    private int cd(List<String> args, OutputStream err) throws IOException {
        String p = path(args.isEmpty() ? "/root" : args.get(0));
        if (!files.isDirectory(p)) {
            write(err, "sh: cd: can't cd to " + (args.isEmpty() ? "/root" : args.get(0))
                    + ": No such file or directory\n");
            return 2;
        }
        cwd = p;
        return 0;
    }

    private static int sleep(List<String> args, OutputStream err) throws IOException {
        if (args.isEmpty()) {
            write(err, "sleep: missing operand\n");
            return 1;
        }
        try {
            double seconds = Double.parseDouble(args.get(0).replaceAll("s$", ""));
            Thread.sleep((long) (seconds * 1000));
            return 0;
        } catch (NumberFormatException e) {
            write(err, "sleep: invalid number '" + args.get(0) + "'\n");
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 130;
        }
    }

    private static int parse(String s, int otherwise) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return otherwise;
        }
    }

    private static int print(OutputStream out, String line) throws IOException {
        write(out, line + "\n");
        return 0;
    }

    static void write(OutputStream out, String s) throws IOException {
        out.write(s.getBytes(StandardCharsets.UTF_8));
    }

    /** A terminal's output: a newline goes out as CR LF. */
    private static final class CrLf extends OutputStream {
        private final OutputStream out;

        CrLf(OutputStream out) {
            this.out = out;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            ByteArrayOutputStream o = new ByteArrayOutputStream(len + 16);
            for (int i = off; i < off + len; i++) {
                if (b[i] == '\n' && (i == off || b[i - 1] != '\r')) {
                    o.write('\r');
                }
                o.write(b[i]);
            }
            out.write(o.toByteArray());
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }
    }

    /** Reads lines; over a terminal, echoes what is typed and edits the line as a terminal's line discipline does. */
    private static final class LineReader {
        private final InputStream in;
        private final OutputStream echo;

        LineReader(InputStream in, OutputStream echo) {
            this.in = in;
            this.echo = echo;
        }

        String readLine() throws IOException {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            while (true) {
                int b = in.read();
                if (b < 0) {
                    return line.size() == 0 ? null : line.toString(StandardCharsets.UTF_8);
                }
                if (echo == null) {
                    if (b == '\n') {
                        return line.toString(StandardCharsets.UTF_8);
                    }
                    line.write(b);
                    continue;
                }
                switch (b) {
                    case '\r', '\n' -> {
                        echo.write(NEWLINE);
                        echo.flush();
                        return line.toString(StandardCharsets.UTF_8);
                    }
                    case 0x7f, 0x08 -> {
                        if (line.size() > 0) {
                            byte[] kept = line.toByteArray();
                            line.reset();
                            line.write(kept, 0, kept.length - 1);
                            echo.write(new byte[] {'\b', ' ', '\b'});
                        }
                    }
                    case 0x03 -> {
                        echo.write("^C\n".getBytes(StandardCharsets.UTF_8));
                        echo.flush();
                        return "";
                    }
                    case 0x04 -> {
                        if (line.size() == 0) {
                            return null;
                        }
                    }
                    default -> {
                        line.write(b);
                        echo.write(b);
                    }
                }
                echo.flush();
            }
        }
    }
}
