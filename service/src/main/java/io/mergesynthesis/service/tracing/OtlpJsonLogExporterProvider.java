package io.mergesynthesis.service.tracing;

import io.opentelemetry.sdk.autoconfigure.spi.ConfigProperties;
import io.opentelemetry.sdk.autoconfigure.spi.traces.ConfigurableSpanExporterProvider;
import io.opentelemetry.sdk.trace.export.SpanExporter;

/** Makes {@link OtlpJsonLogExporter} the exporter {@code logging-otlp} for the SDK's autoconfiguration. */
public final class OtlpJsonLogExporterProvider implements ConfigurableSpanExporterProvider {

    static final String NAME = "logging-otlp";

    @Override
    public SpanExporter createExporter(ConfigProperties config) {
        return new OtlpJsonLogExporter();
    }

    @Override
    public String getName() {
        return NAME;
    }
}
