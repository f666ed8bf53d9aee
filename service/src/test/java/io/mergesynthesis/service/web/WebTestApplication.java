package io.mergesynthesis.service.web;

import io.mergesynthesis.service.MergeSynthesisApplication;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import java.util.List;

/** The application with two configured models, so that the operator page has models to choose from. */
public class WebTestApplication extends MergeSynthesisApplication {

    static final List<String> MODELS = List.of("anthropic/model-large", "openai/model-small");

    @Override
    protected ModelCatalog modelCatalog(MergeSynthesisConfiguration config) {
        return ModelCatalog.of(MODELS);
    }
}
