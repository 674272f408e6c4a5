package io.cybernetes.api;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;

/**
 * Keeps the data directory the owner's alone, as Kubernetes keeps etcd's: directories
 * 0700, files 0600. It holds the cluster's keys, its database (Secrets among it) and the
 * audit log, none of which anyone else on the machine should read. On a file system
 * without POSIX permissions there is nothing to restrict.
 */
public final class PrivateFiles {

    private static final boolean POSIX = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");

    private PrivateFiles() {
    }

    /** Creates the directory (and its parents) if need be, and makes it 0700. */
    public static Path directory(Path dir) {
        try {
            Files.createDirectories(dir);
            if (POSIX) {
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("could not create " + dir, e);
        }
    }

    /** Makes the file 0600. */
    public static void file(Path file) throws IOException {
        if (POSIX) {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        }
    }

    /** Makes every directory below {@code dir} (and itself) 0700 and every file 0600. */
    public static void tree(Path dir) {
        if (!POSIX || !Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                if (Files.isSymbolicLink(p)) {
                    continue;
                }
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(
                        Files.isDirectory(p) ? "rwx------" : "rw-------"));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not restrict " + dir, e);
        }
    }
}
