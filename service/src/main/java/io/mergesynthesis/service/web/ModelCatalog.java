package io.mergesynthesis.service.web;

import java.util.List;

/**
 * The models an operator may pick for an org ({@code <provider>/<model>}), as configured. An org without a model
 * of its own uses the configured primary model, so "none" is always a valid choice.
 */
@FunctionalInterface
public interface ModelCatalog {

    List<String> models();

    /** No models to choose from: an org keeps the configured primary model. */
    static ModelCatalog none() {
        return List::of;
    }

    static ModelCatalog of(List<String> models) {
        List<String> copy = List.copyOf(models);
        return () -> copy;
    }
}
