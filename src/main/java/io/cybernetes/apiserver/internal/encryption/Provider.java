package io.cybernetes.apiserver.internal.encryption;

import org.bouncycastle.crypto.engines.XSalsa20Engine;
import org.bouncycastle.crypto.macs.Poly1305;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.params.ParametersWithIV;

import javax.crypto.AEADBadTagException;
import javax.crypto.BadPaddingException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * One key of one provider of an EncryptionConfiguration, as kube-apiserver's value
 * transformers: the prefix that marks what it wrote ({@code k8s:enc:aesgcm:v1:key1:}),
 * and how it seals and opens a value. The additional data bound to a value is its store key
 * (for AES-GCM, as Kubernetes binds the etcd key), so a value copied under another key does not open.
 */
sealed interface Provider {

    SecureRandom RANDOM = new SecureRandom();

    /** What the stored text starts with when this provider wrote it; empty for identity. */
    String prefix();

    byte[] seal(byte[] plain, byte[] key) throws GeneralSecurityException;

    /** The plain value; {@link OpenFailed} with a message in Kubernetes' words when it does not open. */
    byte[] open(byte[] sealed, byte[] key) throws OpenFailed;

    /** A value this provider cannot open. */
    final class OpenFailed extends Exception {
        OpenFailed(String message) {
            super(message);
        }
    }

    /** Values stored as they are; it refuses to read what another provider encrypted. */
    record Identity() implements Provider {
        @Override
        public String prefix() {
            return "";
        }

        @Override
        public byte[] seal(byte[] plain, byte[] key) {
            return plain;
        }

        @Override
        public byte[] open(byte[] sealed, byte[] key) throws OpenFailed {
            if (startsWith(sealed, io.cybernetes.store.ValueTransformer.ENCRYPTED)) {
                throw new OpenFailed("identity transformer tried to read encrypted data");
            }
            return sealed;
        }
    }

    /** AES in Galois/Counter Mode: a random 12-byte nonce, then ciphertext and tag. */
    record AesGcm(String name, byte[] secret) implements Provider {
        private static final int NONCE = 12;

        @Override
        public String prefix() {
            return "k8s:enc:aesgcm:v1:" + name + ":";
        }

        @Override
        public byte[] seal(byte[] plain, byte[] key) throws GeneralSecurityException {
            byte[] nonce = new byte[NONCE];
            RANDOM.nextBytes(nonce);
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(secret, "AES"), new GCMParameterSpec(128, nonce));
            c.updateAAD(key);
            return concat(nonce, c.doFinal(plain));
        }

        @Override
        public byte[] open(byte[] sealed, byte[] key) throws OpenFailed {
            if (sealed.length < NONCE) {
                throw new OpenFailed("the stored data was shorter than the required size");
            }
            try {
                Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
                c.init(Cipher.DECRYPT_MODE, new SecretKeySpec(secret, "AES"),
                        new GCMParameterSpec(128, sealed, 0, NONCE));
                c.updateAAD(key);
                return c.doFinal(sealed, NONCE, sealed.length - NONCE);
            } catch (AEADBadTagException e) {
                throw new OpenFailed("cipher: message authentication failed");
            } catch (GeneralSecurityException e) {
                throw new OpenFailed("cipher: " + e.getMessage());
            }
        }
    }

    /** AES in CBC mode with PKCS#7 padding: a random 16-byte IV, then the ciphertext. */
    record AesCbc(String name, byte[] secret) implements Provider {
        private static final int BLOCK = 16;

        @Override
        public String prefix() {
            return "k8s:enc:aescbc:v1:" + name + ":";
        }

        @Override
        public byte[] seal(byte[] plain, byte[] key) throws GeneralSecurityException {
            byte[] iv = new byte[BLOCK];
            RANDOM.nextBytes(iv);
            Cipher c = Cipher.getInstance("AES/CBC/PKCS5Padding");
            c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(secret, "AES"), new IvParameterSpec(iv));
            return concat(iv, c.doFinal(plain));
        }

        @Override
        public byte[] open(byte[] sealed, byte[] key) throws OpenFailed {
            if (sealed.length < BLOCK) {
                throw new OpenFailed("the stored data was shorter than the required size");
            }
            if ((sealed.length - BLOCK) % BLOCK != 0) {
                throw new OpenFailed("the stored data is not a multiple of the block size");
            }
            try {
                Cipher c = Cipher.getInstance("AES/CBC/PKCS5Padding");
                c.init(Cipher.DECRYPT_MODE, new SecretKeySpec(secret, "AES"), new IvParameterSpec(sealed, 0, BLOCK));
                return c.doFinal(sealed, BLOCK, sealed.length - BLOCK);
            } catch (BadPaddingException e) {
                throw new OpenFailed("invalid padding on input");
            } catch (GeneralSecurityException e) {
                throw new OpenFailed("cipher: " + e.getMessage());
            }
        }
    }

    /**
     * NaCl's secretbox (XSalsa20 and Poly1305): a random 24-byte nonce, then the tag and the
     * ciphertext. The first 32 bytes of the XSalsa20 stream are the one-time Poly1305 key.
     */
    record Secretbox(String name, byte[] secret) implements Provider {
        private static final int NONCE = 24;
        private static final int TAG = 16;

        @Override
        public String prefix() {
            return "k8s:enc:secretbox:v1:" + name + ":";
        }

        @Override
        public byte[] seal(byte[] plain, byte[] key) {
            byte[] nonce = new byte[NONCE];
            RANDOM.nextBytes(nonce);
            return concat(nonce, box(nonce, plain));
        }

        /** secretbox's Seal: the tag, then the message enciphered. */
        byte[] box(byte[] nonce, byte[] plain) {
            XSalsa20Engine stream = stream(nonce);
            byte[] macKey = new byte[32];
            stream.processBytes(new byte[32], 0, 32, macKey, 0);
            byte[] out = new byte[TAG + plain.length];
            stream.processBytes(plain, 0, plain.length, out, TAG);
            Poly1305 mac = new Poly1305();
            mac.init(new KeyParameter(macKey));
            mac.update(out, TAG, plain.length);
            mac.doFinal(out, 0);
            return out;
        }

        @Override
        public byte[] open(byte[] sealed, byte[] key) throws OpenFailed {
            if (sealed.length < NONCE + TAG) {
                throw new OpenFailed("the stored data was shorter than the required size");
            }
            XSalsa20Engine stream = stream(Arrays.copyOf(sealed, NONCE));
            byte[] macKey = new byte[32];
            stream.processBytes(new byte[32], 0, 32, macKey, 0);
            Poly1305 mac = new Poly1305();
            mac.init(new KeyParameter(macKey));
            int length = sealed.length - NONCE - TAG;
            mac.update(sealed, NONCE + TAG, length);
            byte[] tag = new byte[TAG];
            mac.doFinal(tag, 0);
            if (!MessageDigest.isEqual(tag, Arrays.copyOfRange(sealed, NONCE, NONCE + TAG))) {
                throw new OpenFailed("secretbox: message authentication failed");
            }
            byte[] plain = new byte[length];
            stream.processBytes(sealed, NONCE + TAG, length, plain, 0);
            return plain;
        }

        private XSalsa20Engine stream(byte[] nonce) {
            XSalsa20Engine e = new XSalsa20Engine();
            e.init(true, new ParametersWithIV(new KeyParameter(secret), nonce));
            return e;
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static boolean startsWith(byte[] data, String prefix) {
        byte[] p = prefix.getBytes(StandardCharsets.US_ASCII);
        return data.length >= p.length && Arrays.equals(data, 0, p.length, p, 0, p.length);
    }
}
