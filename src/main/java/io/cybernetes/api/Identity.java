package io.cybernetes.api;

import java.util.List;
import java.util.Map;

/**
 * Who made a request, as every module may read it: the authentication module's user
 * (its {@code UserInfo}) seen through the fields a SubjectAccessReview names, so that a
 * module serving its own endpoint can ask the API server whether that user may see
 * what it is about to show. The authentication filter leaves it in the servlet request
 * under {@link #REQUEST_ATTRIBUTE}.
 */
public interface Identity {

    /** The servlet request attribute that holds the requesting {@link Identity}. */
    String REQUEST_ATTRIBUTE = "io.cybernetes.auth.UserInfo";

    String name();

    String uid();

    List<String> groups();

    Map<String, List<String>> extra();
}
