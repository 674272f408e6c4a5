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
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * ServiceAccount tokens as Kubernetes' bound tokens: RS256 JWTs signed with the key
 * under {@code data/pki}, carrying issuer, audiences, expiry and the account's
 * namespace, name and uid. A token authenticates only while it is unexpired, names an
 * audience of this server, and its ServiceAccount still exists with the same uid.
 */
final class ServiceAccountTokenIssuer implements ServiceAccountTokens {

    private static final String CLAIM = "kubernetes.io";

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
    public IssuedToken issue(String namespace, String name, String uid, List<String> audiences, long expirationSeconds) {
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
                .claim(CLAIM, Map.of("namespace", namespace, "serviceaccount", Map.of("name", name, "uid", uid)))
                .build();
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(keyId).build(), claims);
        try {
            jwt.sign(signer);
        } catch (JOSEException e) {
            throw new IllegalStateException("could not sign a ServiceAccount token", e);
        }
        return new IssuedToken(jwt.serialize(), exp.truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
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
            UserInfo base = UserInfo.serviceAccount(namespace, name, uid);
            return Optional.of(new UserInfo(base.name(), base.uid(), base.groups(),
                    Map.of("authentication.kubernetes.io/credential-id", List.of("JTI=" + c.getJWTID()))));
        } catch (JOSEException | ParseException e) {
            return Optional.empty();
        }
    }
}
