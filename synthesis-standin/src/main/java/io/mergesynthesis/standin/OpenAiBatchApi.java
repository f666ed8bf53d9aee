package io.mergesynthesis.standin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.standin.BatchBook.Batch;
import io.mergesynthesis.standin.BatchBook.Ending;
import io.mergesynthesis.standin.BatchBook.Item;
import io.mergesynthesis.standin.BatchBook.Kind;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * OpenAI's Batch API as the stand-in speaks it: a JSON lines file uploaded to {@code POST /v1/files}
 * ({@code multipart/form-data}, {@code purpose=batch}), a batch made of it with {@code POST /v1/batches}, which
 * keeps the metadata it is given, {@code GET} of one batch and of the list (newest first, {@code after},
 * {@code limit}), {@code POST /v1/batches/{id}/cancel}, and the output and error files at
 * {@code GET /v1/files/{id}/content}. An input the stand-in cannot take as a whole (a line that is not a request
 * to the batch's endpoint, a custom_id twice) makes a batch that fails, as OpenAI's validation does.
 */
final class OpenAiBatchApi {

    static final String BATCHES = "/v1/batches";
    static final String FILES = "/v1/files";
    static final String ENDPOINT = "/v1/chat/completions";
    private static final String OUTPUT = "-output";
    private static final String ERRORS = "-errors";

    private final ObjectMapper mapper;
    private final BatchBook book;
    private final AtomicLong serial = new AtomicLong();
    private final Map<String, Upload> uploads = new ConcurrentHashMap<>();

    /** A file uploaded for a batch. */
    private record Upload(String id, String filename, String purpose, byte[] content, Instant createdAt) {
    }

    OpenAiBatchApi(ObjectMapper mapper, BatchBook book) {
        this.mapper = mapper;
        this.book = book;
    }

    static boolean serves(String path) {
        return path.equals(BATCHES) || path.startsWith(BATCHES + "/") || path.equals(FILES)
                || path.startsWith(FILES + "/");
    }

    /** Whether this is a batch's create, whose answer the behaviour may hold back. */
    static boolean isCreate(String method, String path) {
        return method.equals("POST") && path.equals(BATCHES);
    }

    /** Whether this is a look at one batch, whose answer the behaviour may hold back. */
    static boolean isRetrieve(String method, String path) {
        return method.equals("GET") && path.startsWith(BATCHES + "/") && path.indexOf('/', BATCHES.length() + 1) < 0;
    }

    Reply handle(String method, String path, Map<String, String> query, String contentType, byte[] body) {
        try {
            if (path.equals(FILES) && method.equals("POST")) {
                return upload(contentType, body);
            }
            if (path.startsWith(FILES + "/") && method.equals("GET")) {
                String rest = path.substring(FILES.length() + 1);
                return rest.endsWith("/content") ? content(rest.substring(0, rest.length() - "/content".length()))
                        : file(rest);
            }
            if (path.equals(BATCHES) && method.equals("POST")) {
                return create(body);
            }
            if (path.equals(BATCHES) && method.equals("GET")) {
                return list(query);
            }
            if (path.startsWith(BATCHES + "/")) {
                String rest = path.substring(BATCHES.length() + 1);
                if (method.equals("POST") && rest.endsWith("/cancel")) {
                    String id = rest.substring(0, rest.length() - "/cancel".length());
                    if (find(id) == null) {
                        return notFound("batch", id);
                    }
                    return new Reply(200, Map.of(), json(book.cancel(id)).toString());
                }
                if (method.equals("GET") && !rest.contains("/")) {
                    Batch batch = find(rest);
                    return batch == null ? notFound("batch", rest) : new Reply(200, Map.of(), json(batch).toString());
                }
            }
            return error(404, "invalid_request_error", "no such endpoint");
        } catch (IllegalArgumentException e) {
            return error(400, "invalid_request_error", e.getMessage());
        }
    }

    private Reply upload(String contentType, byte[] body) {
        Map<String, Part> parts = Multipart.parse(contentType, body);
        Part purpose = parts.get("purpose");
        Part file = parts.get("file");
        if (purpose == null || file == null) {
            throw new IllegalArgumentException("a file upload takes the fields purpose and file");
        }
        String purposeText = new String(purpose.content(), StandardCharsets.UTF_8).trim();
        if (!purposeText.equals("batch")) {
            throw new IllegalArgumentException("the stand-in takes files of purpose 'batch' only, not '"
                    + purposeText + "'");
        }
        Upload upload = new Upload("file-standin-" + serial.incrementAndGet(),
                file.filename() == null ? "upload.jsonl" : file.filename(), purposeText, file.content(), Instant.now());
        uploads.put(upload.id(), upload);
        return new Reply(200, Map.of(), fileJson(upload.id(), upload.filename(), upload.purpose(),
                upload.content().length, upload.createdAt()).toString());
    }

    private ObjectNode fileJson(String id, String filename, String purpose, long bytes, Instant createdAt) {
        ObjectNode out = mapper.createObjectNode();
        out.put("id", id);
        out.put("object", "file");
        out.put("bytes", bytes);
        out.put("created_at", createdAt.getEpochSecond());
        out.put("filename", filename);
        out.put("purpose", purpose);
        return out;
    }

    private Reply file(String id) {
        Upload upload = uploads.get(id);
        if (upload != null) {
            return new Reply(200, Map.of(), fileJson(id, upload.filename(), upload.purpose(),
                    upload.content().length, upload.createdAt()).toString());
        }
        String text = resultFile(id);
        if (text == null) {
            return notFound("file", id);
        }
        return new Reply(200, Map.of(), fileJson(id, id + ".jsonl", "batch_output",
                text.getBytes(StandardCharsets.UTF_8).length, Instant.now()).toString());
    }

    private Reply content(String id) {
        Upload upload = uploads.get(id);
        if (upload != null) {
            return new Reply(200, Map.of("content-type", "application/octet-stream"),
                    new String(upload.content(), StandardCharsets.UTF_8));
        }
        String text = resultFile(id);
        return text == null ? notFound("file", id)
                : new Reply(200, Map.of("content-type", "application/octet-stream"), text);
    }

    private Reply create(byte[] body) {
        JsonNode request;
        try {
            request = mapper.readTree(body);
        } catch (IOException e) {
            throw new IllegalArgumentException("the body is not JSON");
        }
        if (request == null || !request.isObject()) {
            throw new IllegalArgumentException("the body is not a JSON object");
        }
        String endpoint = request.path("endpoint").asText("");
        if (!endpoint.equals(ENDPOINT)) {
            throw new IllegalArgumentException("the stand-in batches endpoint " + ENDPOINT + " only, not '"
                    + endpoint + "'");
        }
        if (!request.path("completion_window").asText("").equals("24h")) {
            throw new IllegalArgumentException("completion_window must be 24h");
        }
        Map<String, String> metadata = new LinkedHashMap<>();
        JsonNode given = request.path("metadata");
        if (!given.isMissingNode() && !given.isNull()) {
            if (!given.isObject() || given.size() > 16) {
                throw new IllegalArgumentException("metadata: an object of at most 16 pairs");
            }
            for (var field : (Iterable<Map.Entry<String, JsonNode>>) given::fields) {
                if (field.getKey().length() > 64 || !field.getValue().isTextual()
                        || field.getValue().asText().length() > 512) {
                    throw new IllegalArgumentException("metadata: keys of at most 64 characters, string values of "
                            + "at most 512");
                }
                metadata.put(field.getKey(), field.getValue().asText());
            }
        }
        String fileId = request.path("input_file_id").asText("");
        Upload upload = uploads.get(fileId);
        if (upload == null) {
            return notFound("file", fileId);
        }
        List<String> refusals = new ArrayList<>();
        List<Map.Entry<String, JsonNode>> items = read(upload, refusals);
        Batch batch = book.create(BatchBook.OPENAI, "batch_standin_", refusals.isEmpty() ? items : List.of(),
                metadata, fileId, refusals);
        return new Reply(200, Map.of(), json(batch).toString());
    }

    /** The requests of an input file; what is wrong with it goes to {@code refusals}, by line. */
    private List<Map.Entry<String, JsonNode>> read(Upload upload, List<String> refusals) {
        List<Map.Entry<String, JsonNode>> items = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        String[] lines = new String(upload.content(), StandardCharsets.UTF_8).split("\n");
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].isBlank()) {
                continue;
            }
            int number = i + 1;
            JsonNode line;
            try {
                line = mapper.readTree(lines[i]);
            } catch (IOException e) {
                refusals.add("invalid_json:" + number);
                continue;
            }
            String customId = line.path("custom_id").asText("");
            if (customId.isEmpty()) {
                refusals.add("missing_custom_id:" + number);
            } else if (!seen.add(customId)) {
                refusals.add("duplicate_custom_id:" + number);
            } else if (!"POST".equals(line.path("method").asText()) || !ENDPOINT.equals(line.path("url").asText())) {
                refusals.add("invalid_url:" + number);
            } else if (!line.path("body").isObject()) {
                refusals.add("invalid_body:" + number);
            } else {
                items.add(Map.entry(customId, line.path("body")));
            }
        }
        if (items.isEmpty() && refusals.isEmpty()) {
            refusals.add("empty_file:0");
        }
        return items;
    }

    private Reply list(Map<String, String> query) {
        int limit = Integer.parseInt(query.getOrDefault("limit", "20"));
        if (limit < 1 || limit > 100) {
            throw new IllegalArgumentException("limit must be from 1 to 100");
        }
        String after = query.get("after");
        List<Batch> newestFirst = book.newestFirst(BatchBook.OPENAI);
        int from = 0;
        if (after != null) {
            from = newestFirst.indexOf(find(after)) + 1;
        }
        List<Batch> page = newestFirst.subList(Math.min(from, newestFirst.size()),
                Math.min(from + limit, newestFirst.size()));
        ObjectNode out = mapper.createObjectNode();
        out.put("object", "list");
        ArrayNode data = out.putArray("data");
        page.forEach(b -> data.add(json(b)));
        out.put("first_id", page.isEmpty() ? null : page.get(0).id);
        out.put("last_id", page.isEmpty() ? null : page.get(page.size() - 1).id);
        out.put("has_more", from + limit < newestFirst.size());
        return new Reply(200, Map.of(), out.toString());
    }

    /** An OpenAI batch, or null for none (or another protocol's). */
    private Batch find(String id) {
        Batch batch = book.find(id);
        return batch != null && batch.protocol.equals(BatchBook.OPENAI) ? batch : null;
    }

    /** The text of a batch's output or error file, by its id; null for no such file. */
    private String resultFile(String id) {
        boolean output = id.endsWith(OUTPUT);
        boolean errors = id.endsWith(ERRORS);
        if (!id.startsWith("file-") || !(output || errors)) {
            return null;
        }
        Batch batch = find(id.substring("file-".length(), id.length() - (output ? OUTPUT : ERRORS).length()));
        if (batch == null) {
            return null;
        }
        synchronized (batch) {
            if (!batch.ended()) {
                return null;
            }
        }
        StringBuilder text = new StringBuilder();
        for (Item item : book.resultOrder(batch)) {
            if ((item.kind == Kind.SUCCEEDED) == output) {
                text.append(line(batch, item)).append('\n');
            }
        }
        return text.toString();
    }

    private ObjectNode line(Batch batch, Item item) {
        ObjectNode line = mapper.createObjectNode();
        line.put("id", "batch_req_" + batch.id + "_" + item.index);
        line.put("custom_id", item.customId);
        switch (item.kind) {
            case SUCCEEDED, ERRORED -> {
                ObjectNode response = line.putObject("response");
                response.put("status_code", item.reply.status());
                response.put("request_id", item.reply.headers().getOrDefault("x-request-id",
                        "req-standin-" + batch.id + "-" + item.index));
                response.set("body", readOrEmpty(item.reply.body()));
                line.putNull("error");
            }
            case EXPIRED -> {
                line.putNull("response");
                line.putObject("error").put("code", "batch_expired")
                        .put("message", "the request was not done before the batch's window closed");
            }
            case CANCELED -> {
                line.putNull("response");
                line.putObject("error").put("code", "batch_cancelled")
                        .put("message", "the batch was cancelled before the request was done");
            }
        }
        return line;
    }

    private JsonNode readOrEmpty(String body) {
        try {
            JsonNode node = mapper.readTree(body);
            return node == null ? mapper.createObjectNode() : node;
        } catch (IOException e) {
            return mapper.createObjectNode();
        }
    }

    private ObjectNode json(Batch batch) {
        ObjectNode out = mapper.createObjectNode();
        synchronized (batch) {
            out.put("id", batch.id);
            out.put("object", "batch");
            out.put("endpoint", ENDPOINT);
            out.put("input_file_id", batch.inputFileId);
            out.put("completion_window", "24h");
            // The create's own answer says validating, as OpenAI's does; the stand-in has validated by then.
            out.put("status", !batch.seen ? "validating" : status(batch));
            boolean failed = batch.ending == Ending.FAILED;
            if (failed && batch.seen) {
                ObjectNode errors = out.putObject("errors");
                errors.put("object", "list");
                ArrayNode data = errors.putArray("data");
                for (String refusal : batch.refusals) {
                    int colon = refusal.lastIndexOf(':');
                    ObjectNode error = data.addObject();
                    error.put("code", refusal.substring(0, colon));
                    error.put("message", "the input file was refused: " + refusal.substring(0, colon));
                    error.put("line", Integer.parseInt(refusal.substring(colon + 1)));
                    error.putNull("param");
                }
            } else {
                out.putNull("errors");
            }
            boolean ended = batch.ended() && batch.seen;
            boolean anySucceeded = batch.count(Kind.SUCCEEDED) > 0;
            boolean anyOther = batch.items.stream().anyMatch(item -> item.kind != null && item.kind != Kind.SUCCEEDED);
            out.put("output_file_id", ended && anySucceeded ? "file-" + batch.id + OUTPUT : null);
            out.put("error_file_id", ended && anyOther ? "file-" + batch.id + ERRORS : null);
            out.put("created_at", batch.createdAt.getEpochSecond());
            out.put("in_progress_at", failed ? null : batch.createdAt.getEpochSecond());
            out.put("expires_at", batch.createdAt.plus(Duration.ofHours(24)).getEpochSecond());
            out.put("finalizing_at", ended && !failed ? batch.endedAt.getEpochSecond() : null);
            out.put("completed_at", ended && batch.ending == Ending.COMPLETED ? batch.endedAt.getEpochSecond() : null);
            out.put("failed_at", ended && failed ? batch.endedAt.getEpochSecond() : null);
            out.put("expired_at", ended && batch.ending == Ending.EXPIRED ? batch.endedAt.getEpochSecond() : null);
            out.put("cancelling_at", batch.cancelingAt == null ? null : batch.cancelingAt.getEpochSecond());
            out.put("cancelled_at", ended && batch.ending == Ending.CANCELED ? batch.endedAt.getEpochSecond() : null);
            ObjectNode counts = out.putObject("request_counts");
            counts.put("total", batch.items.size());
            counts.put("completed", batch.count(Kind.SUCCEEDED));
            counts.put("failed", batch.count(Kind.ERRORED) + batch.count(Kind.EXPIRED) + batch.count(Kind.CANCELED));
            ObjectNode metadata = out.putObject("metadata");
            batch.metadata.forEach(metadata::put);
            batch.seen = true;
        }
        return out;
    }

    private static String status(Batch batch) {
        if (batch.ending != null) {
            return switch (batch.ending) {
                case COMPLETED -> "completed";
                case EXPIRED -> "expired";
                case CANCELED -> "cancelled";
                case FAILED -> "failed";
            };
        }
        return batch.cancelingAt != null ? "cancelling" : "in_progress";
    }

    private Reply notFound(String what, String id) {
        return error(404, "invalid_request_error", "no " + what + " " + id);
    }

    private Reply error(int status, String type, String message) {
        ObjectNode body = mapper.createObjectNode();
        ObjectNode error = body.putObject("error");
        error.put("message", message);
        error.put("type", type);
        error.putNull("param");
        error.putNull("code");
        return new Reply(status, Map.of(), body.toString());
    }

    /** One field of a multipart form. */
    record Part(String filename, byte[] content) {
    }

    /** A multipart/form-data body read by hand: the fields by name. */
    static final class Multipart {

        private Multipart() {
        }

        static Map<String, Part> parse(String contentType, byte[] body) {
            String boundary = null;
            if (contentType != null) {
                for (String piece : contentType.split(";")) {
                    String p = piece.trim();
                    if (p.regionMatches(true, 0, "boundary=", 0, "boundary=".length())) {
                        boundary = p.substring("boundary=".length()).replace("\"", "");
                    }
                }
            }
            if (contentType == null || !contentType.toLowerCase(java.util.Locale.ROOT).startsWith("multipart/form-data")
                    || boundary == null || boundary.isEmpty()) {
                throw new IllegalArgumentException("a file upload is multipart/form-data with a boundary");
            }
            // Latin-1 maps each byte to one char and back, so the file's bytes survive the split unchanged.
            String text = new String(body, StandardCharsets.ISO_8859_1);
            String delimiter = "--" + boundary;
            Map<String, Part> parts = new LinkedHashMap<>();
            int at = text.indexOf(delimiter);
            while (at >= 0) {
                int start = at + delimiter.length();
                if (text.startsWith("--", start)) {
                    break;
                }
                int next = text.indexOf("\r\n" + delimiter, start);
                if (next < 0) {
                    throw new IllegalArgumentException("the multipart body does not close");
                }
                String part = text.substring(start, next);
                if (part.startsWith("\r\n")) {
                    part = part.substring(2);
                }
                int split = part.indexOf("\r\n\r\n");
                if (split < 0) {
                    throw new IllegalArgumentException("a part of the multipart body has no headers");
                }
                String name = null;
                String filename = null;
                for (String header : part.substring(0, split).split("\r\n")) {
                    if (header.toLowerCase(java.util.Locale.ROOT).startsWith("content-disposition:")) {
                        name = attribute(header, "name");
                        filename = attribute(header, "filename");
                    }
                }
                if (name != null) {
                    parts.put(name, new Part(filename,
                            part.substring(split + 4).getBytes(StandardCharsets.ISO_8859_1)));
                }
                at = next + 2;
            }
            return parts;
        }

        private static String attribute(String header, String key) {
            for (String piece : header.split(";")) {
                String p = piece.trim();
                if (p.startsWith(key + "=")) {
                    return p.substring(key.length() + 1).replace("\"", "");
                }
            }
            return null;
        }
    }
}
