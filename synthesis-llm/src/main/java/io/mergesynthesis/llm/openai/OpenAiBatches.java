package io.mergesynthesis.llm.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.llm.BatchHttp;
import io.mergesynthesis.llm.ProviderBatches;
import io.mergesynthesis.llm.ProviderSettings;
import io.mergesynthesis.llm.WireJson;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * OpenAI's Batch API: the requests uploaded as a JSON lines file ({@code POST /files}, {@code purpose=batch}),
 * then a batch made of it ({@code POST /batches}) carrying our own id in its metadata, so that a listed batch
 * says whose it is. Paths are under the provider's base URL, which for OpenAI ends in {@code /v1}.
 */
public final class OpenAiBatches implements ProviderBatches {

    /** The endpoint every request of a batch is sent to, as OpenAI names it. */
    public static final String ENDPOINT = "/v1/chat/completions";
    /** The metadata key our own batch id is kept under. */
    public static final String OWN_ID_KEY = "merge_synthesis_batch";
    /** The upload is sent in parts of about this size, so that no one array holds the whole file. */
    private static final int PART_BYTES = 1 << 20;

    private final ProviderSettings provider;
    private final BatchHttp http;

    public OpenAiBatches(ProviderSettings provider) {
        this.provider = provider;
        this.http = new BatchHttp(provider);
    }

    @Override
    public Batch create(String ownId, List<Request> requests) throws Failed, InterruptedException {
        String fileId = upload(requests);
        return batch(http.json(builder("/batches").header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(createBody(fileId, ownId).toString())).build()));
    }

    /** What {@link #create} posts once the file is up. */
    static ObjectNode createBody(String inputFileId, String ownId) {
        ObjectNode body = WireJson.MAPPER.createObjectNode();
        body.put("input_file_id", inputFileId);
        body.put("endpoint", ENDPOINT);
        body.put("completion_window", "24h");
        if (ownId != null) {
            body.putObject("metadata").put(OWN_ID_KEY, ownId);
        }
        return body;
    }

    /** One line of the uploaded file. */
    static ObjectNode line(Request request) {
        ObjectNode line = WireJson.MAPPER.createObjectNode();
        line.put("custom_id", request.customId());
        line.put("method", "POST");
        line.put("url", ENDPOINT);
        line.set("body", request.body());
        return line;
    }

    /** Uploads the requests as one JSON lines file; its id. */
    private String upload(List<Request> requests) throws Failed, InterruptedException {
        String boundary = "merge-synthesis-" + UUID.randomUUID();
        String head = "--" + boundary + "\r\n"
                + "Content-Disposition: form-data; name=\"purpose\"\r\n\r\n"
                + "batch\r\n"
                + "--" + boundary + "\r\n"
                + "Content-Disposition: form-data; name=\"file\"; filename=\"merge-synthesis-batch.jsonl\"\r\n"
                + "Content-Type: application/jsonl\r\n\r\n";
        String tail = "\r\n--" + boundary + "--\r\n";
        List<HttpRequest.BodyPublisher> parts = new ArrayList<>();
        parts.add(HttpRequest.BodyPublishers.ofString(head));
        jsonl(requests).forEach(part -> parts.add(HttpRequest.BodyPublishers.ofByteArray(part)));
        parts.add(HttpRequest.BodyPublishers.ofString(tail));
        JsonNode file = http.json(builder("/files")
                .header("content-type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.concat(parts.toArray(HttpRequest.BodyPublisher[]::new))).build());
        String id = file.path("id").asText("");
        if (id.isEmpty()) {
            throw new Failed("POST /files answered without a file id", 200);
        }
        return id;
    }

    /** The file's lines, in parts of about {@link #PART_BYTES}. */
    static List<byte[]> jsonl(List<Request> requests) {
        List<byte[]> parts = new ArrayList<>();
        ByteArrayOutputStream part = new ByteArrayOutputStream();
        try {
            for (Request request : requests) {
                WireJson.MAPPER.writeValue(new NoClose(part), line(request));
                part.write('\n');
                if (part.size() >= PART_BYTES) {
                    parts.add(part.toByteArray());
                    part.reset();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (part.size() > 0) {
            parts.add(part.toByteArray());
        }
        return parts;
    }

    @Override
    public Batch retrieve(String id) throws Failed, InterruptedException {
        return batch(http.json(builder("/batches/" + encode(id)).GET().build()));
    }

    @Override
    public Page list(String afterId, int limit) throws Failed, InterruptedException {
        String query = "?limit=" + limit + (afterId == null ? "" : "&after=" + encode(afterId));
        return page(http.json(builder("/batches" + query).GET().build()));
    }

    /**
     * {@inheritDoc} The output file, then the error file; either may be missing. A batch that ended without a
     * file (refused as a whole, or cancelled before any request was done) has an empty stream.
     */
    @Override
    public Stream<Result> results(Batch batch) throws Failed, InterruptedException {
        if (!batch.ended()) {
            throw new Failed("batch " + batch.id() + " has no results yet", 0);
        }
        Stream<Result> all = Stream.empty();
        List<Stream<JsonNode>> opened = new ArrayList<>();
        try {
            for (String fileId : batch.resultsAt()) {
                if (fileId != null) {
                    Stream<JsonNode> lines = http.lines(builder("/files/" + encode(fileId) + "/content").GET().build());
                    opened.add(lines);
                    all = Stream.concat(all, lines.map(OpenAiBatches::result));
                }
            }
        } catch (Failed | InterruptedException | RuntimeException e) {
            opened.forEach(Stream::close);
            throw e;
        }
        return all;
    }

    @Override
    public Batch cancel(String id) throws Failed, InterruptedException {
        return batch(http.json(builder("/batches/" + encode(id) + "/cancel")
                .POST(HttpRequest.BodyPublishers.noBody()).build()));
    }

    @Override
    public boolean carriesOwnId() {
        return true;
    }

    private HttpRequest.Builder builder(String pathAndQuery) {
        return HttpRequest.newBuilder(URI.create(provider.trimmedBaseUrl() + pathAndQuery))
                .timeout(provider.getRequestTimeout())
                .header("authorization", "Bearer " + provider.requireKey());
    }

    /** A batch object. */
    static Batch batch(JsonNode json) {
        String status = json.path("status").asText("");
        Stage stage = switch (status) {
            case "completed", "failed", "expired", "cancelled" -> Stage.ENDED;
            case "cancelling" -> Stage.CANCELING;
            default -> Stage.IN_PROGRESS; // validating, in_progress, finalizing
        };
        JsonNode created = json.path("created_at");
        JsonNode ownId = json.path("metadata").path(OWN_ID_KEY);
        return new Batch(json.path("id").asText(), stage,
                created.canConvertToLong() ? Instant.ofEpochSecond(created.asLong()) : null,
                ownId.isTextual() ? ownId.asText() : null, status,
                Arrays.asList(text(json.path("output_file_id")), text(json.path("error_file_id"))));
    }

    /** A page of the list. */
    static Page page(JsonNode json) {
        List<Batch> batches = new ArrayList<>();
        for (JsonNode batch : json.path("data")) {
            batches.add(batch(batch));
        }
        return new Page(batches, json.path("has_more").asBoolean(false), text(json.path("last_id")));
    }

    /**
     * One line of an output or error file. A request the provider answered has a {@code response}, succeeded when
     * its status is 200; one it never sent has an {@code error} whose code says why.
     */
    static Result result(JsonNode line) {
        String customId = line.path("custom_id").asText();
        JsonNode error = line.path("error");
        if (error.isObject()) {
            String code = text(error.path("code"));
            if ("batch_expired".equals(code)) {
                return new Result(customId, Outcome.EXPIRED, null, null);
            }
            if ("batch_cancelled".equals(code)) {
                return new Result(customId, Outcome.CANCELED, null, null);
            }
            return new Result(customId, Outcome.ERRORED, null, code == null ? "unknown_error" : code);
        }
        JsonNode response = line.path("response");
        int status = response.path("status_code").asInt(0);
        if (status == 200) {
            return new Result(customId, Outcome.SUCCEEDED, response.path("body"), null);
        }
        JsonNode bodyError = response.path("body").path("error");
        String type = text(bodyError.path("type"));
        if (type == null) {
            type = text(bodyError.path("code"));
        }
        return new Result(customId, Outcome.ERRORED, null, type != null ? type : "http_" + status);
    }

    private static String text(JsonNode value) {
        return value.isTextual() && !value.asText().isEmpty() ? value.asText() : null;
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    /** Lets the mapper write into the part without closing it. */
    private static final class NoClose extends java.io.FilterOutputStream {
        NoClose(java.io.OutputStream out) {
            super(out);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        public void close() {
        }
    }
}
