package io.mergesynthesis.service.synthesis;

import io.mergesynthesis.llm.LlmSettings;
import io.mergesynthesis.llm.ModelPrice;
import io.mergesynthesis.service.core.ModelCatalog;
import io.mergesynthesis.service.core.Money;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The model catalog as the {@code llm:} settings describe it: names (sorted), providers, prices, and the route.
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
            models.add(new ModelCatalog.Model(name, slash < 0 ? name : name.substring(0, slash),
                    Money.readable(price.getInputPerMillionUsd()), Money.readable(price.getOutputPerMillionUsd()),
                    Money.readable(price.effectiveCacheRead()), Money.readable(price.effectiveCacheWrite())));
        }
        models.sort(java.util.Comparator.comparing(ModelCatalog.Model::name));
        return new ModelCatalog(models, blankToNull(llm.getPrimaryModel()), blankToNull(llm.getEscalationModel()));
    }

    private static String blankToNull(String text) {
        return text == null || text.isBlank() ? null : text;
    }
}
