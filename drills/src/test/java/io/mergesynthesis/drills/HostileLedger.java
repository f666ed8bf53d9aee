package io.mergesynthesis.drills;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mergesynthesis.drills.Probe.Caller;
import io.mergesynthesis.drills.Probe.Endpoint;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the hostile-input drill saw, answer by answer, and what the database must hold because of it.
 *
 * <p>Every answer is judged on the spot: a 5xx or no answer at all is a finding; so is an answer to one org's
 * caller that names another org's data the request did not itself carry, a 4xx whose body is not JSON with a
 * message, a 2xx to a caller without a valid token or with the wrong role, and an event page whose lines are
 * not the format asked for. Accepted writes are tallied from the answers alone (created conflicts, acknowledged
 * and resolved ones, with the resolution each accepted request sent), so that the database can be compared with
 * them at the end: a rejected request that stored anything shows up there as a row nobody was told about.
 */
final class HostileLedger {

    /** How a probe went: an HTTP answer, or {@code failure} when there was none. */
    record Outcome(int status, String contentType, String nextCursor, byte[] body, String failure, boolean raw,
                   long millis) {

        static Outcome failed(String failure, boolean raw, long millis) {
            return new Outcome(-1, null, null, new byte[0], failure, raw, millis);
        }
    }

    /** One kind of finding: how often it happened and the first few examples. */
    static final class Findings {
        private final String name;
        private final LongAdder count = new LongAdder();
        private final List<String> examples = Collections.synchronizedList(new ArrayList<>());

        Findings(String name) {
            this.name = name;
        }

        void add(Probe probe, String detail) {
            count.increment();
            if (examples.size() < 12) {
                examples.add(probe.describe() + "\n      -> " + detail);
            }
        }

        void add(String detail) {
            count.increment();
            if (examples.size() < 12) {
                examples.add(detail);
            }
        }

        long count() {
            return count.sum();
        }

        String name() {
            return name;
        }

        List<String> examples() {
            synchronized (examples) {
                return List.copyOf(examples);
            }
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern UUID_TEXT = Pattern.compile(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    final Findings serverErrors = new Findings("5xx answers");
    final Findings noAnswer = new Findings("no answer (reset, closed or timed out)");
    final Findings leaks = new Findings("another org's data in an answer");
    final Findings errorBodies = new Findings("4xx without a JSON body with a message");
    final Findings wrongAccess = new Findings("2xx to a caller who may not have it");
    final Findings eventFormat = new Findings("event pages not in the format asked for");
    final Findings oddAnswers = new Findings("2xx answers that contradict themselves");
    final Findings writesCutShort = new Findings("server stopped reading before the request was sent (answer still read)");

    private final Map<String, LongAdder> statuses = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> endpoints = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> kinds = new ConcurrentHashMap<>();
    private final LongAdder sent = new LongAdder();
    private final LongAdder sentRaw = new LongAdder();
    private final LongAdder errorBodiesChecked = new LongAdder();
    private final LongAdder hungUpOnGarbage = new LongAdder();
    private final LongAdder versionsRefused = new LongAdder();
    private final AtomicLong slowestMillis = new AtomicLong();
    private final Map<String, LongAdder> millisByKind = new ConcurrentHashMap<>();
    private volatile String slowest = "none";

    // What accepted requests changed, by their answers.
    private final AtomicLong created = new AtomicLong();
    private final Map<UUID, LongAdder> createdPerOrg = new ConcurrentHashMap<>();
    private final Map<UUID, String> answeredKeys = new ConcurrentHashMap<>();
    private final Set<UUID> acknowledged = ConcurrentHashMap.newKeySet();
    private final Set<UUID> resolved = ConcurrentHashMap.newKeySet();
    private final Map<UUID, Set<String>> resolutionsSent = new ConcurrentHashMap<>();

    // What each org owns, to recognise it in answers to anyone else.
    private final Map<UUID, String> keyPrefixes = new ConcurrentHashMap<>();
    private final Map<UUID, Set<String>> conflictIds = new ConcurrentHashMap<>();

    /** Makes {@code org}'s id, its dedup keys (by prefix) and its conflict ids recognisable in answers. */
    void watch(UUID org, String keyPrefix) {
        keyPrefixes.put(org, keyPrefix);
        conflictIds.put(org, ConcurrentHashMap.newKeySet());
    }

    /** Judges one answer and tallies what it changed. */
    void record(Probe probe, Outcome outcome) {
        sent.increment();
        if (outcome.raw()) {
            sentRaw.increment();
        }
        if (outcome.millis() > slowestMillis.getAndAccumulate(outcome.millis(), Math::max)) {
            slowest = outcome.millis() + " ms, #" + probe.index() + " " + probe.kind();
        }
        Endpoint endpoint = probe.endpoint();
        count(endpoints, endpoint.label);
        count(kinds, probe.kind());
        millisByKind.computeIfAbsent(probe.kind(), k -> new LongAdder()).add(outcome.millis());
        if (outcome.failure() != null) {
            count(statuses, "no answer");
            if (probe.mayGoUnanswered()) {
                hungUpOnGarbage.increment();
            } else {
                noAnswer.add(probe, outcome.failure());
            }
            return;
        }
        count(statuses, Integer.toString(outcome.status()));
        String body = new String(outcome.body(), StandardCharsets.UTF_8);
        // 505 is how HTTP answers a request line in a version the server does not speak: the client's doing,
        // and the answer the protocol prescribes, so it is counted apart from the server's own failures.
        boolean versionRefused = outcome.status() == 505 && probe.kind().equals("raw/bad-version");
        if (versionRefused) {
            versionsRefused.increment();
        } else if (outcome.status() >= 500) {
            serverErrors.add(probe, outcome.status() + " " + cut(body, 300));
        }
        checkIsolation(probe, body);
        if ((outcome.status() >= 400 && outcome.status() < 500 || versionRefused) && !probe.method().equals("HEAD")) {
            checkErrorBody(probe, outcome, body);
        }
        if (outcome.status() >= 200 && outcome.status() < 300) {
            checkAccess(probe, endpoint, outcome);
            if (probe.method().equals("POST")) {
                tallyWrite(probe, outcome, body);
            }
            if (endpoint == Endpoint.EVENTS && !probe.method().equals("HEAD")) {
                checkEventPage(probe, outcome, body);
            }
            if (endpoint == Endpoint.GET_ONE && probe.method().equals("GET")) {
                JsonNode answer = readTree(body);
                String id = answer == null ? "" : answer.path("id").asText();
                if (id.isEmpty() || !probe.path().toLowerCase().contains(id)) {
                    oddAnswers.add(probe, "answer about conflict " + id + " to a request for " + probe.path());
                }
            }
        }
    }

    /** An ingest answer seen outside the fuzz (seeding): tallied the same way. */
    void noteIngestAnswer(String body) {
        tallyIngest(null, readTree(body));
    }

    void noteInboxAnswer(String path, String requestBody, String answer) {
        tallyInbox(null, path, requestBody == null ? new byte[0] : requestBody.getBytes(StandardCharsets.UTF_8),
                readTree(answer));
    }

    void noteWriteCutShort(Probe probe, String detail) {
        writesCutShort.add(probe, detail);
    }

    // ---- the checks ----

    private void checkIsolation(Probe probe, String body) {
        Caller caller = probe.caller();
        if (caller.platform() || body.isEmpty()) {
            return;
        }
        String wire = null;
        String lowerWire = null;
        for (Map.Entry<UUID, String> org : keyPrefixes.entrySet()) {
            if (caller.authentic() && org.getKey().equals(caller.org())) {
                continue;
            }
            if (wire == null) {
                wire = probe.wireText();
                lowerWire = wire.toLowerCase();
            }
            String id = org.getKey().toString();
            if (body.contains(id) && !wire.contains(id)) {
                leaks.add(probe, "names org " + id + ": " + around(body, id));
            }
            String prefix = org.getValue();
            if (body.contains(prefix) && !wire.contains(prefix)) {
                leaks.add(probe, "shows a dedup key of org " + id + ": " + around(body, prefix));
            }
            Set<String> ids = conflictIds.get(org.getKey());
            Matcher uuids = UUID_TEXT.matcher(body);
            while (uuids.find()) {
                String found = uuids.group().toLowerCase();
                if (ids.contains(found) && !lowerWire.contains(found)) {
                    leaks.add(probe, "shows conflict " + found + " of org " + id);
                    break;
                }
            }
        }
    }

    private void checkErrorBody(Probe probe, Outcome outcome, String body) {
        errorBodiesChecked.increment();
        String problem = null;
        if (outcome.contentType() == null || !outcome.contentType().startsWith("application/json")) {
            problem = "content type " + outcome.contentType();
        } else {
            JsonNode error = readTree(body);
            if (error == null || !error.isObject()) {
                problem = "body is not a JSON object";
            } else if (!error.path("message").isTextual() || error.path("message").textValue().isBlank()) {
                problem = "no message";
            }
        }
        if (problem != null) {
            errorBodies.add(probe, outcome.status() + ", " + problem + ": " + cut(body, 160));
        }
    }

    private void checkAccess(Probe probe, Endpoint endpoint, Outcome outcome) {
        Caller caller = probe.caller();
        if (endpoint == Endpoint.OPENAPI || probe.method().equals("OPTIONS")) {
            return;
        }
        if (!caller.authentic()) {
            wrongAccess.add(probe, outcome.status() + " without a valid token");
        } else if (endpoint.roles != null && !endpoint.roles.isEmpty() && !endpoint.roles.contains(caller.role())) {
            wrongAccess.add(probe, outcome.status() + " for role " + caller.role() + " on " + endpoint.label);
        }
    }

    private void tallyWrite(Probe probe, Outcome outcome, String body) {
        JsonNode answer = readTree(body);
        if (answer == null || !answer.isObject()) {
            oddAnswers.add(probe, outcome.status() + " to a POST with a body that is not a JSON object: " + cut(body, 200));
            return;
        }
        if (answer.has("created") || answer.has("results")) {
            tallyIngest(probe, answer);
        } else if (answer.has("inbox")) {
            tallyInbox(probe, probe.path(), probe.body() == null ? new byte[0] : probe.body(), answer);
        } else {
            oddAnswers.add(probe, "2xx to a POST that is neither an ingest nor an inbox answer: " + cut(body, 200));
        }
    }

    private void tallyIngest(Probe probe, JsonNode answer) {
        List<JsonNode> results = new ArrayList<>();
        if (answer.has("results")) {
            answer.get("results").forEach(results::add);
        } else {
            results.add(answer);
        }
        long createdHere = 0;
        for (JsonNode result : results) {
            UUID id = UUID.fromString(result.get("id").asText());
            UUID org = UUID.fromString(result.get("org_id").asText());
            String key = result.get("dedup_key").asText();
            String before = answeredKeys.putIfAbsent(id, key);
            if (before != null && !before.equals(key)) {
                String detail = "conflict " + id + " answered for dedup key " + printable(key) + " and earlier for "
                        + printable(before);
                if (probe == null) {
                    oddAnswers.add(detail);
                } else {
                    oddAnswers.add(probe, detail);
                }
            }
            conflictIds.computeIfAbsent(org, o -> ConcurrentHashMap.newKeySet()).add(id.toString());
            if (result.path("created").asBoolean()) {
                createdHere++;
                created.incrementAndGet();
                createdPerOrg.computeIfAbsent(org, o -> new LongAdder()).increment();
            }
        }
        if (answer.has("results") && answer.path("created").asLong() != createdHere && probe != null) {
            oddAnswers.add(probe, "batch totals say " + answer.path("created") + " created, its results " + createdHere);
        }
    }

    private void tallyInbox(Probe probe, String path, byte[] requestBody, JsonNode answer) {
        UUID id = UUID.fromString(answer.get("id").asText());
        if (!path.toLowerCase().contains(id.toString())) {
            // An answer about another conflict than the one asked for: a crossed wire, not an inbox change.
            if (probe != null) {
                oddAnswers.add(probe, "answer about conflict " + id + " to a request for " + path);
            }
            return;
        }
        JsonNode inbox = answer.get("inbox");
        if (path.contains("/acknowledge")) {
            if (!inbox.path("acknowledged_at").isNull()) {
                acknowledged.add(id);
            }
        } else if (path.contains("/resolve")) {
            if (!"resolved".equals(inbox.path("status").asText())) {
                if (probe != null) {
                    oddAnswers.add(probe, "2xx to a resolve that left the conflict " + inbox.path("status").asText());
                }
                return;
            }
            resolved.add(id);
            // From bytes, so that Jackson reads a UTF-16 or UTF-32 body the way the server did.
            JsonNode sentBody = readTree(requestBody);
            if (sentBody == null || !sentBody.isObject()) {
                if (probe != null) {
                    oddAnswers.add(probe, "2xx to a resolve whose body the drill cannot read back");
                }
                return;
            }
            JsonNode note = sentBody.get("note");
            resolutionsSent.computeIfAbsent(id, i -> ConcurrentHashMap.newKeySet())
                    .add(resolutionKey(sentBody.path("resolution").asText(), note == null || note.isNull() ? null : note.asText()));
        } else if (probe != null) {
            oddAnswers.add(probe, "inbox answer to an unexpected path " + path);
        }
    }

    /** NDJSON lines are JSON objects ending with the cursor line; CEF lines have the seven header separators. */
    private void checkEventPage(Probe probe, Outcome outcome, String body) {
        if (outcome.nextCursor() == null) {
            eventFormat.add(probe, "no Next-Cursor header");
        }
        String type = outcome.contentType() == null ? "" : outcome.contentType();
        List<String> lines = body.lines().filter(l -> !l.isEmpty()).toList();
        int limit = requestedLimit(probe.target());
        if (type.startsWith("application/x-ndjson")) {
            for (int i = 0; i < lines.size(); i++) {
                JsonNode line = readTree(lines.get(i));
                if (line == null || !line.isObject()) {
                    eventFormat.add(probe, "NDJSON line " + (i + 1) + " is not a JSON object: " + cut(lines.get(i), 200));
                    return;
                }
            }
            if (lines.isEmpty() || !readTree(lines.get(lines.size() - 1)).has("next_cursor")) {
                eventFormat.add(probe, "NDJSON page without its next_cursor line");
            }
            if (lines.size() > limit + 1) {
                eventFormat.add(probe, lines.size() + " NDJSON lines for limit " + limit);
            }
        } else if (type.startsWith("text/plain")) {
            for (String line : lines) {
                String problem = cefProblem(line);
                if (problem != null) {
                    eventFormat.add(probe, problem + ": " + cut(line, 300));
                    return;
                }
            }
            if (lines.size() > limit) {
                eventFormat.add(probe, lines.size() + " CEF lines for limit " + limit + " (a value broke a line?)");
            }
        } else {
            eventFormat.add(probe, "event page of content type " + type);
        }
    }

    static String cefProblem(String line) {
        if (!line.startsWith("CEF:0|")) {
            return "CEF line does not start with CEF:0|";
        }
        List<String> fields = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        for (int i = 0; i < line.length() && fields.size() < 7; i++) {
            char c = line.charAt(i);
            if (c == '\\' && i + 1 < line.length()) {
                field.append(line.charAt(++i));
            } else if (c == '|') {
                fields.add(field.toString());
                field.setLength(0);
            } else {
                field.append(c);
            }
        }
        if (fields.size() < 7) {
            return "CEF line with " + fields.size() + " header separators";
        }
        if (!fields.get(6).matches("\\d{1,2}")) {
            return "CEF severity is not a number (a value escaped its field?)";
        }
        return null;
    }

    private static int requestedLimit(String target) {
        Matcher limit = Pattern.compile("[?&]limit=(\\d{1,5})(&|$)").matcher(target);
        return limit.find() ? Integer.parseInt(limit.group(1)) : 1000;
    }

    // ---- what the database must show ----

    long created() {
        return created.get();
    }

    Map<UUID, Long> createdPerOrg() {
        Map<UUID, Long> copy = new TreeMap<>();
        createdPerOrg.forEach((org, n) -> copy.put(org, n.sum()));
        return copy;
    }

    Map<UUID, String> answeredKeys() {
        return Map.copyOf(answeredKeys);
    }

    Set<UUID> acknowledged() {
        return Set.copyOf(acknowledged);
    }

    Set<UUID> resolved() {
        return Set.copyOf(resolved);
    }

    /** Whether some accepted resolve request sent exactly this resolution and note. */
    boolean resolutionWasSent(UUID id, String resolution, String note) {
        return resolutionsSent.getOrDefault(id, Set.of()).contains(resolutionKey(resolution, note));
    }

    long sent() {
        return sent.sum();
    }

    long sentRaw() {
        return sentRaw.sum();
    }

    /** The longest a request waited for its answer (or for giving up), and which request it was. */
    String slowest() {
        return slowest;
    }

    /** The generators whose requests waited longest for their answers in all, longest first. */
    List<String> slowestKinds(int how) {
        return sorted(millisByKind).entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(how)
                .map(e -> e.getKey() + " " + e.getValue() + " ms").toList();
    }

    /** 505 answers to request lines naming an HTTP version other than 1.x. */
    long versionsRefused() {
        return versionsRefused.sum();
    }

    /** Requests that were no HTTP request at all and got no answer, which is fair. */
    long hungUpOnGarbage() {
        return hungUpOnGarbage.sum();
    }

    long errorBodiesChecked() {
        return errorBodiesChecked.sum();
    }

    Map<String, Long> statuses() {
        return sorted(statuses);
    }

    Map<String, Long> endpoints() {
        return sorted(endpoints);
    }

    Map<String, Long> kinds() {
        return sorted(kinds);
    }

    List<Findings> findings() {
        return List.of(serverErrors, noAnswer, leaks, errorBodies, wrongAccess, eventFormat, oddAnswers);
    }

    // ---- small helpers ----

    private static String resolutionKey(String resolution, String note) {
        return resolution + "\u0001" + (note == null ? "\u0002null" : note);
    }

    private static void count(Map<String, LongAdder> counts, String key) {
        counts.computeIfAbsent(key, k -> new LongAdder()).increment();
    }

    private static Map<String, Long> sorted(Map<String, LongAdder> counts) {
        Map<String, Long> copy = new TreeMap<>();
        counts.forEach((k, v) -> copy.put(k, v.sum()));
        return copy;
    }

    private static JsonNode readTree(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            return null;
        }
    }

    private static JsonNode readTree(byte[] bytes) {
        try {
            return bytes.length == 0 ? null : JSON.readTree(bytes);
        } catch (IOException e) {
            return null;
        }
    }

    private static String around(String body, String needle) {
        int at = body.indexOf(needle);
        return cut(body.substring(Math.max(0, at - 80)), 240);
    }

    static String cut(String text, int max) {
        String oneLine = text.replace("\n", "\\n").replace("\r", "\\r");
        return oneLine.length() <= max ? oneLine : oneLine.substring(0, max) + "...(" + text.length() + " chars)";
    }

    static String printable(String text) {
        StringBuilder out = new StringBuilder("\"");
        text.chars().forEach(c -> out.append(c >= 0x20 && c < 0x7f ? String.valueOf((char) c) : String.format("\\u%04x", c)));
        return out.append('"').toString();
    }
}
