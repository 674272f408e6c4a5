package io.cybernetes.apiserver;

import java.nio.file.Path;

/** Where the running API server can be reached, once it has started. */
public interface ApiServerEndpoints {

    int httpsPort();

    int httpPort();

    /** The admin kubeconfig written at start-up. */
    Path adminKubeconfig();
}
