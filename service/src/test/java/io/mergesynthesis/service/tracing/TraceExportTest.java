package io.mergesynthesis.service.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.LoggerFactory;

/** When the environment turns traces on, and where they then go: an OTLP endpoint, or the log as OTLP JSON. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TraceExportTest {

    @ParameterizedTest(name = "disabled={0} exporter={1} endpoint={2} traces endpoint={3} -> {4}")
    @CsvSource(nullValues = "-", value = {
            "-,     -,                 -,                     -,                     false",
            "-,     -,                 http://collector:4318, -,                     true",
            "-,     -,                 -,                     http://collector:4318, true",
            "-,     -,                 ' ',                   -,                     false",
            "-,     none,              http://collector:4318, -,                     false",
            "-,     logging-otlp,      -,                     -,                     true",
            "-,     'otlp,logging-otlp', -,                   -,                     true",
            "true,  otlp,              http://collector:4318, -,                     false",
            "false, -,                 http://collector:4318, -,                     true"})
    void tracesAreOnOnlyWhenAnExporterOrAnEndpointIsNamed(String disabled, String exporter, String endpoint,
                                                           String tracesEndpoint, boolean on) {
        Map<String, String> environment = new HashMap<>();
        put(environment, "OTEL_SDK_DISABLED", disabled);
        put(environment, "OTEL_TRACES_EXPORTER", exporter);
        put(environment, "OTEL_EXPORTER_OTLP_ENDPOINT", endpoint);
        put(environment, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", tracesEndpoint);

        assertThat(TraceExport.wanted(environment)).isEqualTo(on);
    }

    @Test
    void variablesThatNameNoExporterLeaveTracesOff() {
        Random random = new Random(48);
        String[] unrelated = {"OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES", "OTEL_TRACES_SAMPLER",
                "OTEL_BSP_SCHEDULE_DELAY", "OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_PROTOCOL", "PATH",
                "DATABASE_URL"};
        for (int i = 0; i < 200; i++) {
            Map<String, String> environment = new HashMap<>();
            for (String name : unrelated) {
                if (random.nextBoolean()) {
                    environment.put(name, Long.toString(random.nextLong(), 36));
                }
            }
            assertThat(TraceExport.wanted(environment)).as("%s", environment).isFalse();
        }
    }

    @Test
    void offIsTheNoOpApiWhoseSpansRecordNothing() {
        TraceExport off = TraceExport.of(Map.of("OTEL_SERVICE_NAME", "merge-synthesis"));

        assertThat(off.telemetry()).isSameAs(OpenTelemetry.noop());
        Span span = off.telemetry().getTracer("test").spanBuilder("attempt").startSpan();
        assertThat(span.isRecording()).isFalse();
        assertThat(span.getSpanContext().isValid()).isFalse();
        span.end();
        off.stop();
    }

    @Test
    void loggingOtlpPrintsEachBatchAsOtlpJson() throws Exception {
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        Logger logger = (Logger) LoggerFactory.getLogger(OtlpJsonLogExporter.class);
        log.start();
        logger.addAppender(log);
        try {
            TraceExport traces = TraceExport.of(Map.of("OTEL_TRACES_EXPORTER", "logging-otlp"));
            Span span = traces.telemetry().getTracer("test").spanBuilder("chat test-model").startSpan();
            span.setAttribute("gen_ai.provider.name", "anthropic");
            span.end();
            traces.stop();

            assertThat(log.list).hasSize(1);
            JsonNode request = new ObjectMapper().readTree(log.list.get(0).getFormattedMessage());
            JsonNode resource = request.at("/resourceSpans/0");
            assertThat(resource.at("/resource/attributes").findValuesAsText("key")).contains("service.name");
            assertThat(resource.at("/resource/attributes").toString()).contains("merge-synthesis");
            JsonNode exported = resource.at("/scopeSpans/0/spans/0");
            assertThat(exported.get("name").asText()).isEqualTo("chat test-model");
            assertThat(exported.get("traceId").asText()).isEqualTo(span.getSpanContext().getTraceId());
            assertThat(exported.at("/attributes/0/key").asText()).isEqualTo("gen_ai.provider.name");
            assertThat(exported.at("/attributes/0/value/stringValue").asText()).isEqualTo("anthropic");
        } finally {
            logger.detachAppender(log);
        }
    }

    @Test
    void anOtlpEndpointReceivesTheSpansOverHttpProtobufWhenTheServiceStops() throws Exception {
        List<String> received = new CopyOnWriteArrayList<>();
        HttpServer collector = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        collector.createContext("/", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            received.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath() + " "
                    + exchange.getRequestHeaders().getFirst("Content-Type") + " " + body.length);
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        collector.start();
        try {
            TraceExport traces = TraceExport.of(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT",
                    "http://127.0.0.1:" + collector.getAddress().getPort()));
            Span span = traces.telemetry().getTracer("test").spanBuilder("synthesis attempt").startSpan();
            assertThat(span.isRecording()).isTrue();
            span.end();
            assertThat(received).as("batched: nothing sent before the batch is due").isEmpty();
            traces.stop();

            assertThat(received).singleElement().asString()
                    .startsWith("POST /v1/traces application/x-protobuf ")
                    .doesNotEndWith(" 0");
        } finally {
            collector.stop(0);
        }
    }

    @Test
    void theStartLineNamesTheEndpointWithoutItsUserAndPassword() {
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        Logger logger = (Logger) LoggerFactory.getLogger(TraceExport.class);
        log.start();
        logger.addAppender(log);
        try {
            TraceExport traces = TraceExport.of(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT",
                    "https://otel-user:Pa55-w0rd-otlp@collector.example:4318"));
            traces.stop();

            assertThat(log.list).map(ILoggingEvent::getFormattedMessage)
                    .anySatisfy(line -> assertThat(line).contains("endpoint https://collector.example:4318"))
                    .allSatisfy(line -> assertThat(line).doesNotContain("Pa55-w0rd-otlp").doesNotContain("otel-user"));
        } finally {
            logger.detachAppender(log);
        }
        assertThat(TraceExport.withoutCredentials("http://u:p@[::1]:4318/v1/traces"))
                .isEqualTo("http://[::1]:4318/v1/traces");
        assertThat(TraceExport.withoutCredentials("http://collector:4318")).isEqualTo("http://collector:4318");
        assertThat(TraceExport.withoutCredentials("http://u:p w@collector")).doesNotContain("p w");
    }

    private static void put(Map<String, String> environment, String name, String value) {
        if (value != null) {
            environment.put(name, value);
        }
    }
}
