package io.mergesynthesis.service.tracing;

import io.dropwizard.lifecycle.Managed;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where this replica's traces go (docs/adr/0048): nowhere, through OpenTelemetry's no-op API, unless the
 * environment names an exporter ({@code OTEL_TRACES_EXPORTER}) or an OTLP endpoint
 * ({@code OTEL_EXPORTER_OTLP_ENDPOINT}, {@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT}). Then the SDK is set up by
 * its own autoconfiguration from every {@code OTEL_*} variable, with this service's defaults beneath them:
 * traces only, OTLP over HTTP. The one place the SDK is built; the rest of the service is handed the
 * {@link OpenTelemetry} it makes, as it is handed the clock. Stopped last among the worker's parts, so that the
 * spans of the last attempts are flushed.
 */
public final class TraceExport implements Managed {

    private static final Logger LOG = LoggerFactory.getLogger(TraceExport.class);

    /**
     * Beneath whatever the environment says. Metrics and logs stay with Prometheus and the log: only traces go
     * out. OTLP over HTTP because the exporter sends with the JDK's own client, which speaks no gRPC.
     */
    static final Map<String, String> DEFAULTS = Map.of(
            "otel.service.name", "merge-synthesis",
            "otel.traces.exporter", "otlp",
            "otel.metrics.exporter", "none",
            "otel.logs.exporter", "none",
            "otel.exporter.otlp.protocol", "http/protobuf");

    private final OpenTelemetry telemetry;
    private final Optional<OpenTelemetrySdk> sdk;

    private TraceExport(OpenTelemetry telemetry, Optional<OpenTelemetrySdk> sdk) {
        this.telemetry = telemetry;
        this.sdk = sdk;
    }

    /** Traces as {@code environment} (the process's, in production) asks for them. */
    public static TraceExport of(Map<String, String> environment) {
        if (!wanted(environment)) {
            LOG.info("Traces are off: set OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_TRACES_EXPORTER) to export them");
            return new TraceExport(OpenTelemetry.noop(), Optional.empty());
        }
        Map<String, String> fromEnvironment = new HashMap<>();
        environment.forEach((name, value) -> {
            if (name.startsWith("OTEL_")) {
                fromEnvironment.put(name.toLowerCase(Locale.ROOT).replace('_', '.'), value);
            }
        });
        OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder()
                .addPropertiesSupplier(() -> DEFAULTS)
                .addPropertiesSupplier(() -> fromEnvironment)
                // Stopped with the service instead (see stop()), after the worker's last attempts.
                .disableShutdownHook()
                .build()
                .getOpenTelemetrySdk();
        LOG.info("Traces go to exporter {} (OTEL_TRACES_EXPORTER), endpoint {}",
                fromEnvironment.getOrDefault("otel.traces.exporter", DEFAULTS.get("otel.traces.exporter")),
                withoutCredentials(fromEnvironment.getOrDefault("otel.exporter.otlp.traces.endpoint",
                        fromEnvironment.getOrDefault("otel.exporter.otlp.endpoint", "the exporter's default"))));
        return new TraceExport(sdk, Optional.of(sdk));
    }

    /**
     * Whether the environment asks for traces: an exporter other than {@code none}, or an OTLP endpoint, and the
     * SDK not disabled.
     */
    static boolean wanted(Map<String, String> environment) {
        if ("true".equalsIgnoreCase(environment.getOrDefault("OTEL_SDK_DISABLED", "").trim())) {
            return false;
        }
        String exporter = environment.getOrDefault("OTEL_TRACES_EXPORTER", "").trim();
        if (!exporter.isEmpty()) {
            return !exporter.equalsIgnoreCase("none");
        }
        return !environment.getOrDefault("OTEL_EXPORTER_OTLP_ENDPOINT", "").isBlank()
                || !environment.getOrDefault("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").isBlank();
    }

    /**
     * The endpoint as it may be logged: a collector behind basic authentication is often named with its user and
     * password in the URL, and those stay out. Text that is no URL is kept only when it holds no at sign.
     */
    static String withoutCredentials(String endpoint) {
        try {
            URI uri = new URI(endpoint.strip());
            if (uri.getRawUserInfo() == null) {
                return endpoint;
            }
            return new URI(uri.getScheme(), null, uri.getHost(), uri.getPort(), uri.getRawPath(), null, null)
                    .toString();
        } catch (URISyntaxException e) {
            return endpoint.contains("@") ? "an endpoint that is no valid URL" : endpoint;
        }
    }

    /** What the worker and the synthesizer trace through: the no-op API when traces are off. */
    public OpenTelemetry telemetry() {
        return telemetry;
    }

    @Override
    public void start() {
        // Set up when made: the worker needs the tracer before the lifecycle starts.
    }

    /** Sends what is still queued and shuts the exporter down. */
    @Override
    public void stop() {
        sdk.ifPresent(OpenTelemetrySdk::close);
    }
}
