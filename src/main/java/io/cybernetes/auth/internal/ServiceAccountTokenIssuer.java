package io.cybernetes.auth.internal;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.cybernetes.auth.AuthProperties;
import io.cybernetes.auth.ServiceAccountTokens;
import io.cybernetes.auth.UserInfo;

import java.security.KeyPair;
import java.security.interfaces.RSAPublicKey;
import java.text.ParseException;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * ServiceAccount tokens as Kubernetes' bound tokens: RS256 JWTs signed with the key
 * under {@code data/pki}, carrying issuer, audiences, expiry and the account's
 * namespace, name and uid, and the object the token is bound to (a pod, with its node;
 * a Secret; a node). A token authenticates only while it is unexpired, names an
 * audience of this server, and its ServiceAccount and the object it is bound to still
 * exist with the same uids (an object being deleted counts as gone a minute after its
 * deletion is due, as Kubernetes' leeway).
 */
final class ServiceAccountTokenIssuer implements ServiceAccountTokens {

    private static final String CLAIM = "kubernetes.io";
    private static final String EXTRA = "authentication.kubernetes.io/";
    /** How long past its deletion a bound object still counts, as the JWT library's default leeway in Kubernetes. */
    private static final Duration LEEWAY = Duration.ofMinutes(1);

    private final String issuer;
    private final List<String> apiAudiences;
    private final long maxExpirationSeconds;
    private final RSASSASigner signer;
    private final RSASSAVerifier verifier;
    private final String keyId;
    private final ClusterPolicy cluster;

    ServiceAccountTokenIssuer(AuthProperties.ServiceAccountSettings settings, KeyPair keys, ClusterPolicy cluster) {
        this.issuer = settings.issuer();
        this.apiAudiences = settings.apiAudiences().isEmpty() ? List.of(issuer) : List.copyOf(settings.apiAudiences());
        this.maxExpirationSeconds = settings.maxExpiration().toSeconds();
        this.signer = new RSASSASigner(keys.getPrivate());
        this.verifier = new RSASSAVerifier((RSAPublicKey) keys.getPublic());
        try {
            this.keyId = new RSAKey.Builder((RSAPublicKey) keys.getPublic()).build().computeThumbprint().toString();
        } catch (JOSEException e) {
            throw new IllegalStateException("could not compute the ServiceAccount key id", e);
        }
        this.cluster = cluster;
    }

    @Override
    public List<String> apiAudiences() {
        return apiAudiences;
    }

    String issuer() {
        return issuer;
    }

    @Override
    public IssuedToken issue(String namespace, String name, String uid, List<String> audiences, long expirationSeconds,
                             BoundObjects bound) {
        if (expirationSeconds < MIN_EXPIRATION_SECONDS) {
            throw new IllegalArgumentException("a token must live at least " + MIN_EXPIRATION_SECONDS + " seconds");
        }
        long seconds = Math.min(expirationSeconds, maxExpirationSeconds);
        Instant now = Instant.now();
        Instant exp = now.plusSeconds(seconds);
        JWTClaimsSet claims = new JWTClaimsSet.Builder()
                .issuer(issuer)
                .subject(UserInfo.SERVICE_ACCOUNT_PREFIX + namespace + ":" + name)
                .audience(audiences.isEmpty() ? apiAudiences : audiences)
                .issueTime(Date.from(now))
                .notBeforeTime(Date.from(now))
                .expirationTime(Date.from(exp))
                .jwtID(UUID.randomUUID().toString())
                .claim(CLAIM, claim(namespace, name, uid, bound))
                .build();
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(keyId).build(), claims);
        try {
            jwt.sign(signer);
        } catch (JOSEException e) {
            throw new IllegalStateException("could not sign a ServiceAccount token", e);
        }
        return new IssuedToken(jwt.serialize(), exp.truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
    }

    private static Map<String, Object> claim(String namespace, String name, String uid, BoundObjects bound) {
        Map<String, Object> k8s = new LinkedHashMap<>();
        k8s.put("namespace", namespace);
        k8s.put("serviceaccount", ref(new ObjectRef(name, uid)));
        if (bound.pod() != null) {
            k8s.put("pod", ref(bound.pod()));
        }
        if (bound.secret() != null) {
            k8s.put("secret", ref(bound.secret()));
        }
        if (bound.node() != null) {
            k8s.put("node", ref(bound.node()));
        }
        return k8s;
    }

    private static Map<String, Object> ref(ObjectRef ref) {
        return Map.of("name", ref.name(), "uid", ref.uid());
    }

    /** The name and uid a claim names, or null when the claim is absent. */
    private static ObjectRef ref(Map<String, Object> k8s, String claim) {
        return k8s.get(claim) instanceof Map<?, ?> m ? new ObjectRef(String.valueOf(m.get("name")),
                String.valueOf(m.get("uid"))) : null;
    }

    /** Whether the object a token is bound to still exists as it was when the token was issued. */
    private boolean exists(String kind, String namespace, ObjectRef ref) {
        ClusterPolicy.Identity current = cluster.boundObject(kind, namespace, ref.name());
        return current != null && current.uid().equals(ref.uid())
                && (current.deletion() == null || current.deletion().isAfter(Instant.now().minus(LEEWAY)));
    }

    /** The identity of a token this issuer signed, or empty when it is forged, expired, for another audience or orphaned. */
    Optional<UserInfo> authenticate(SignedJWT jwt) {
        try {
            if (!jwt.verify(verifier)) {
                return Optional.empty();
            }
            JWTClaimsSet c = jwt.getJWTClaimsSet();
            Date now = new Date();
            if (!issuer.equals(c.getIssuer()) || c.getExpirationTime() == null || !c.getExpirationTime().after(now)
                    || (c.getNotBeforeTime() != null && c.getNotBeforeTime().after(now))
                    || c.getAudience().stream().noneMatch(apiAudiences::contains)) {
                return Optional.empty();
            }
            Map<String, Object> k8s = c.getJSONObjectClaim(CLAIM);
            if (k8s == null || !(k8s.get("serviceaccount") instanceof Map<?, ?> sa)) {
                return Optional.empty();
            }
            String namespace = String.valueOf(k8s.get("namespace"));
            String name = String.valueOf(sa.get("name"));
            String uid = String.valueOf(sa.get("uid"));
            if (!uid.equals(cluster.serviceAccountUid(namespace, name))) {
                return Optional.empty();
            }
            ObjectRef pod = ref(k8s, "pod");
            ObjectRef secret = ref(k8s, "secret");
            ObjectRef node = ref(k8s, "node");
            if ((pod != null && !exists("Pod", namespace, pod)) || (secret != null && !exists("Secret", namespace, secret))
                    || (pod == null && node != null && !exists("Node", null, node))) {
                return Optional.empty();
            }
            Map<String, List<String>> extra = new LinkedHashMap<>();
            extra.put(EXTRA + "credential-id", List.of("JTI=" + c.getJWTID()));
            if (pod != null) {
                extra.put(EXTRA + "pod-name", List.of(pod.name()));
                extra.put(EXTRA + "pod-uid", List.of(pod.uid()));
            }
            if (node != null) {
                extra.put(EXTRA + "node-name", List.of(node.name()));
                extra.put(EXTRA + "node-uid", List.of(node.uid()));
            }
            UserInfo base = UserInfo.serviceAccount(namespace, name, uid);
            return Optional.of(new UserInfo(base.name(), base.uid(), base.groups(), extra));
        } catch (JOSEException | ParseException e) {
            return Optional.empty();
        }
    }
}
