package io.mergesynthesis.service.models;

import io.mergesynthesis.service.core.ModelCatalog;
import java.util.Optional;

/**
 * Whether this replica can serve the model an org chose, asked by the worker before anything is routed or paid
 * for: a model whose provider has no key here, or that is no longer configured, holds the org's conflicts back
 * uncounted instead of failing them attempt after attempt.
 */
@FunctionalInterface
public interface OrgModelCheck {

    /** For a router that ignores org settings (the stub's): every setting is as good as none. */
    OrgModelCheck NONE = setting -> Optional.empty();

    /** The catalog's rule, applied to stored settings. */
    static OrgModelCheck of(ModelCatalog catalog) {
        return setting -> setting == null ? Optional.empty() : catalog.unusable(setting);
    }

    /** @param orgModelSetting the org's stored model, or null when it has none (the primary, always served) */
    Optional<ModelCatalog.Unusable> unservable(String orgModelSetting);
}
