package io.cybernetes.apiserver.internal.audit;

import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Annotations admission adds to the audit event of the request being served (a
 * ValidatingAdmissionPolicy's audit annotations and failed validations), kept with the request
 * until the audit filter writes its event.
 */
public final class AuditAnnotations {

    static final String REQUEST_ATTRIBUTE = AuditAnnotations.class.getName();

    private AuditAnnotations() {
    }

    /** Adds to the current HTTP request's annotations; nothing for in-process calls, which have none. */
    @SuppressWarnings("unchecked")
    public static void add(Map<String, String> annotations) {
        if (annotations.isEmpty()) {
            return;
        }
        RequestAttributes request = RequestContextHolder.getRequestAttributes();
        if (request == null) {
            return;
        }
        Object held = request.getAttribute(REQUEST_ATTRIBUTE, RequestAttributes.SCOPE_REQUEST);
        Map<String, String> all = held instanceof Map<?, ?> m ? (Map<String, String>) m : new LinkedHashMap<>();
        all.putAll(annotations);
        request.setAttribute(REQUEST_ATTRIBUTE, all, RequestAttributes.SCOPE_REQUEST);
    }
}
