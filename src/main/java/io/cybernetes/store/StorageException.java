package io.cybernetes.store;

/** A store failure with a code, so callers test {@link #isNotFound()} rather than messages. */
public final class StorageException extends RuntimeException {

    /** UNREADABLE: a stored value no configured provider decrypts (the message names the key, as Kubernetes'). */
    public enum Code { KEY_NOT_FOUND, KEY_EXISTS, CONFLICT, EXPIRED, TOO_LARGE_REVISION, UNAVAILABLE, INTERNAL, UNREADABLE }

    private final Code code;
    private final String key;

    public StorageException(Code code, String key, String message) {
        super(message);
        this.code = code;
        this.key = key;
    }

    public StorageException(Code code, String key, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
        this.key = key;
    }

    public Code code() {
        return code;
    }

    public String key() {
        return key;
    }

    public boolean isNotFound() {
        return code == Code.KEY_NOT_FOUND;
    }

    public boolean isExists() {
        return code == Code.KEY_EXISTS;
    }

    public boolean isConflict() {
        return code == Code.CONFLICT;
    }

    public boolean isExpired() {
        return code == Code.EXPIRED;
    }
}
