package io.mergesynthesis.service.tracing;

import io.opentelemetry.exporter.internal.otlp.traces.TraceRequestMarshaler;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes each batch of spans to the log as one line of OTLP JSON (an export request, as a collector's file
 * exporter reads it), for a quick look without a collector: {@code OTEL_TRACES_EXPORTER=logging-otlp}.
 * OpenTelemetry's own exporter of that name is not served to this build; this one writes the same JSON with the
 * OTLP exporter's own marshaller, which comes with the OTLP exporter this service already ships.
 */
final class OtlpJsonLogExporter implements SpanExporter {

    private static final Logger LOG = LoggerFactory.getLogger(OtlpJsonLogExporter.class);

    private volatile boolean shutDown;

    @Override
    public CompletableResultCode export(Collection<SpanData> spans) {
        if (shutDown) {
            return CompletableResultCode.ofFailure();
        }
        ByteArrayOutputStream json = new ByteArrayOutputStream();
        try {
            TraceRequestMarshaler.create(spans).writeJsonTo(json);
        } catch (IOException e) {
            LOG.warn("Could not write {} spans as OTLP JSON", spans.size(), e);
            return CompletableResultCode.ofFailure();
        }
        LOG.info(json.toString(StandardCharsets.UTF_8));
        return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode flush() {
        return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode shutdown() {
        shutDown = true;
        return CompletableResultCode.ofSuccess();
    }
}
