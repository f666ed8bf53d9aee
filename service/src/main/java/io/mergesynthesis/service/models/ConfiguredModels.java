package io.mergesynthesis.service.models;

import io.mergesynthesis.llm.LlmSettings;
import io.mergesynthesis.llm.ModelPrice;
import io.mergesynthesis.llm.ProviderSettings;
import io.mergesynthesis.service.core.ModelCatalog;
import io.mergesynthesis.service.core.Money;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The model catalog as the {@code llm:} settings describe it: names (sorted), providers, prices, the route, and
 * which models this replica can call. A model whose provider has no key here is listed, marked not usable.
 */
public final class ConfiguredModels {

    private ConfiguredModels() {
    }

    public static ModelCatalog of(LlmSettings llm) {
        List<ModelCatalog.Model> models = new ArrayList<>();
        for (Map.Entry<String, ModelPrice> entry : llm.getModels().entrySet()) {
            String name = entry.getKey();
            ModelPrice price = entry.getValue();
            int slash = name.indexOf('/');
            String provider = slash < 0 ? name : name.substring(0, slash);
            ProviderSettings settings = llm.getProviders().get(provider);
            String unusable = null;
            String keyVariable = null;
            if (settings == null) {
                unusable = "cannot be used: its provider '" + provider + "' is not configured under llm.providers";
            } else if (!settings.hasKey()) {
                keyVariable = settings.keyVariable();
                unusable = "cannot be used on this replica: provider '" + provider + "' has no API key; set "
                        + keyVariable + " and restart";
            }
            models.add(new ModelCatalog.Model(name, provider,
                    Money.readable(price.getInputPerMillionUsd()), Money.readable(price.getOutputPerMillionUsd()),
                    Money.readable(price.effectiveCacheRead()), Money.readable(price.effectiveCacheWrite()),
                    unusable == null, unusable, keyVariable));
        }
        models.sort(Comparator.comparing(ModelCatalog.Model::name));
        return new ModelCatalog(models, blankToNull(llm.getPrimaryModel()), blankToNull(llm.getEscalationModel()));
    }

    private static String blankToNull(String text) {
        return text == null || text.isBlank() ? null : text;
    }
}
