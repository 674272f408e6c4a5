package io.cybernetes.controller.serviceaccount;

import io.cybernetes.api.ApiException;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.Indexer;
import io.cybernetes.client.ResourceEventHandler;
import io.cybernetes.controller.Controller;
import io.cybernetes.controller.Reconciler;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.Result;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;

/**
 * Gives every active namespace a {@code default} ServiceAccount, and puts it back when
 * it is deleted, as kube-controller-manager's serviceaccount controller does. Keyed by
 * namespace name.
 */
public final class ServiceAccountsController implements Reconciler {

    public static final String NAME = "serviceaccount";
    public static final String DEFAULT = "default";

    private final ApiClient client;
    private final Indexer<Namespace> namespaces;
    private final Indexer<ServiceAccount> accounts;

    public ServiceAccountsController(ApiClient client, Indexer<Namespace> namespaces, Indexer<ServiceAccount> accounts) {
        this.client = client;
        this.namespaces = namespaces;
        this.accounts = accounts;
    }

    @Override
    public Result reconcile(Request request) {
        String ns = request.name();
        Namespace namespace = namespaces.get(ns).orElse(null);
        if (namespace == null || namespace.getMetadata().getDeletionTimestamp() != null
                || accounts.get(ns + "/" + DEFAULT).isPresent()) {
            return Result.DONE;
        }
        try {
            client.create(new ServiceAccountBuilder().withNewMetadata().withNamespace(ns).withName(DEFAULT)
                    .endMetadata().build());
        } catch (ApiException e) {
            // 409: someone made it first; 403/404: the namespace is going away
            if (e.code() != 409 && e.code() != 403 && e.code() != 404) {
                throw e;
            }
        }
        return Result.DONE;
    }

    /** A namespace that appears (or changes) is looked at. */
    public ResourceEventHandler<Namespace> namespaceHandler(Controller controller) {
        return controller.enqueueOnAddAndUpdate();
    }

    /** A deleted {@code default} account sends its namespace to be looked at. */
    public ResourceEventHandler<ServiceAccount> serviceAccountHandler(Controller controller) {
        return new ResourceEventHandler<>() {
            @Override
            public void onDelete(ServiceAccount sa, boolean finalStateUnknown) {
                if (DEFAULT.equals(sa.getMetadata().getName())) {
                    controller.enqueue(sa.getMetadata().getNamespace());
                }
            }
        };
    }
}
