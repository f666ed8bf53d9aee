package io.mergesynthesis.drills;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamWriteConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.drills.Probe.Caller;
import io.mergesynthesis.drills.Probe.Endpoint;
import io.mergesynthesis.drills.Probe.Header;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.URLEncoder;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.zip.GZIPOutputStream;

/**
 * Generates the hostile-input drill's requests. Request {@code n} of a run depends only on the seed, {@code n} and
 * what was seeded before the fuzz (tokens, conflict ids, cursors), so a seed replays the same requests in the same
 * shapes even though ids differ between runs.
 *
 * <p>Most requests are near misses of valid ones (a valid conflict with one to three things wrong), because a
 * request rejected at the first check reaches nothing behind it; about one in seven is valid, so that storage,
 * the inbox actions and the event formats see the odd-but-legal values too.
 */
final class HostileProbes {

    /** One org's side of the drill: its tokens and what was seeded for it. */
    record Org(String name, UUID id, String keyPrefix, String admin, String ingest, String siem,
               String revokedAdmin, String revokedIngest, String revokedSiem,
               List<UUID> conflicts, String inboxCursor, String eventCursor) {

        String token(String role) {
            return switch (role) {
                case "org_admin" -> admin;
                case "ingest" -> ingest;
                case "siem" -> siem;
                default -> throw new IllegalArgumentException(role);
            };
        }

        String revoked(String role) {
            return switch (role) {
                case "org_admin" -> revokedAdmin;
                case "ingest" -> revokedIngest;
                default -> revokedSiem;
            };
        }

        /** Dedup keys of this org carry its prefix, so another org's answers can be searched for them. */
        String key(String rest) {
            return keyPrefix + "-" + rest;
        }
    }

    record Targets(Org a, Org b, String platform, String revokedPlatform, String platformEventCursor) {
    }

    /** Writes documents deeper than Jackson's default limit: the server is the one meant to refuse them. */
    private static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder()
            .streamWriteConstraints(StreamWriteConstraints.builder().maxNestingDepth(1_000_000).build())
            .build());
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final String[] ROLES = {"org_admin", "ingest", "siem"};

    /** Text the ingest format accepts although it means trouble somewhere: SQL, CEF and Unicode oddities. */
    static final String[] ODD_VALID_TEXT = {
            "' OR '1'='1", "'; DROP TABLE policy_conflicts; --", "\" OR \"\"=\"", "1; SELECT pg_sleep(30)",
            "$$; COMMIT; $$", "%' AND 1=1 --", "\\x00", "E'\\\\'", "current_setting('app.org_id')",
            "a|b|c", "key=value", "back\\slash", "CEF:0|evil|x|1|2|3|10|", "a\\|b", "=|\\=", "cs1=forged suid=x",
            "trailing\\", "msg=\\n", "😀🔥", "\u202Egnp.exe", "e\u0301\u0301\u0301", "\u200Bzero-width",
            "\uFEFFbom", "\uFFFF\uFFFE", "𝕏𝔂", "ǅİß", "１２３", "\u2028sep\u2029", "nbsp\u00A0", "<script>alert(1)</script>",
            "${jndi:ldap://x/a}", "../../etc/passwd", "{{7*7}}", "%00", "%s%s%n", "null", "true", "[]",
    };

    /** Targets the grammar allows although they look odd: its every punctuation mark, digits, case, length. */
    static final String[] ODD_VALID_TARGETS = {
            "arn:aws:s3:::bucket/key@v1", "a-b_c:d/e@f.*", "X", "0.0.0.*", "UPPER.lower.MiXeD",
            "https://example.com/api", "@/:-_", "t".repeat(300), "a.b.c.d.e.f.g.h.i.j.k.*",
    };

    /** Text every string field refuses. */
    static final String[] INVALID_TEXT = {
            "", "   ", "\t", "a\u0000b", "\u0000", "a\nb", "\r", "\u001b[31mred", "\u007f", "\u0085", "\ud800",
            "a\udfffb", "\udbff\udbff",
    };

    private final Targets targets;
    private final long seed;
    private final int port;
    private final byte[] oversized;
    private final byte[] justUnder;
    private final byte[] gzipBomb;

    HostileProbes(Targets targets, long seed, int port, long bodyLimit) {
        this.targets = targets;
        this.seed = seed;
        this.port = port;
        // The big bodies are built once: a run sends each many times.
        this.oversized = ("{\"dedup_key\": \"" + "x".repeat((int) bodyLimit + 1000) + "\"}").getBytes(StandardCharsets.US_ASCII);
        this.justUnder = ("{\"dedup_key\": \"" + "y".repeat((int) bodyLimit - 100) + "\"}").getBytes(StandardCharsets.US_ASCII);
        this.gzipBomb = gzip(("{\"dedup_key\": \"" + "z".repeat((int) bodyLimit * 3) + "\"}").getBytes(StandardCharsets.US_ASCII));
    }

    Probe build(int index) {
        return new Draw(index, new SplittableRandom(seed ^ (index * 0x9E3779B97F4A7C15L))).probe();
    }

    /** The making of one probe: its random source, and the org it acts for. */
    private final class Draw {
        final int index;
        final SplittableRandom r;
        final Org own;
        final Org other;

        Draw(int index, SplittableRandom r) {
            this.index = index;
            this.r = r;
            this.own = r.nextBoolean() ? targets.a() : targets.b();
            this.other = own == targets.a() ? targets.b() : targets.a();
        }

        /**
         * Shares per thousand: 370 ingest bodies, 45 odd sizes and encodings, 320 inbox reads and actions, 90
         * event pages, 20 OpenAPI, 55 stray paths and methods, 100 broken HTTP sent raw.
         */
        Probe probe() {
            int roll = r.nextInt(1000);
            if (roll < 80) {
                return validIngest();
            }
            if (roll < 120) {
                return batchIngest();
            }
            if (roll < 260) {
                return mutatedIngest();
            }
            if (roll < 290) {
                return foreignIngest();
            }
            if (roll < 370) {
                return malformedBody();
            }
            if (roll < 378) {
                return hugeBody();
            }
            if (roll < 415) {
                return oddContentType();
            }
            if (roll < 515) {
                return list();
            }
            if (roll < 585) {
                return getOne();
            }
            if (roll < 645) {
                return acknowledge();
            }
            if (roll < 735) {
                return resolve();
            }
            if (roll < 825) {
                return events();
            }
            if (roll < 845) {
                return openApi();
            }
            if (roll < 900) {
                return strayRequest();
            }
            return rawProtocol();
        }

        // ---- ingest ----

        Probe validIngest() {
            Auth auth = rightful(Endpoint.INGEST);
            Org org = auth.caller().platform() && r.nextInt(4) == 0 ? other : own;
            String key = r.nextInt(5) == 0 ? org.key("seed-" + r.nextInt(30)) : org.key("fz-" + index + oddSuffix());
            ObjectNode conflict = conflict(org, key);
            if (r.nextInt(3) == 0) {
                oddButValid(conflict);
            }
            if (!auth.caller().platform() && r.nextInt(4) == 0) {
                conflict.remove("org_id");
            }
            return json("valid-ingest", auth, "POST", "/v1/conflicts", conflict);
        }

        Probe batchIngest() {
            Auth auth = rightful(Endpoint.INGEST);
            ObjectNode batch = NODES.objectNode();
            ArrayNode items = batch.putArray("conflicts");
            int size = 1 + r.nextInt(8);
            boolean broken = r.nextInt(3) == 0;
            for (int i = 0; i < size; i++) {
                Org org = auth.caller().platform() && r.nextBoolean() ? other : own;
                String key = r.nextInt(4) == 0 ? org.key("seed-" + r.nextInt(30)) : org.key("fz-" + index + "-" + i);
                ObjectNode item = conflict(org, key);
                if (broken && r.nextInt(size) == 0) {
                    mutate(item);
                    settle(item);
                }
                items.add(item);
            }
            switch (broken ? r.nextInt(6) : -1) {
                case 0 -> batch.put("extra", true);
                case 1 -> batch.set("conflicts", NODES.objectNode());
                case 2 -> batch.set("conflicts", NODES.arrayNode());
                case 3 -> batch.putNull("conflicts");
                case 4 -> {
                    // One item more than a batch may hold: all must be refused.
                    ArrayNode many = batch.putArray("conflicts");
                    for (int i = 0; i < 501; i++) {
                        many.add(conflict(own, own.key("fz-" + index + "-many-" + i)));
                    }
                }
                case 5 -> items.add(NODES.objectNode().set("conflicts", NODES.arrayNode().add(conflict(own, own.key("nested")))));
                default -> {
                }
            }
            return json(broken ? "broken-batch" : "valid-batch", auth, "POST", "/v1/conflicts", batch);
        }

        Probe mutatedIngest() {
            Auth auth = rightful(Endpoint.INGEST);
            ObjectNode conflict = conflict(own, own.key("fz-" + index));
            int mutations = 1 + r.nextInt(3);
            for (int i = 0; i < mutations; i++) {
                mutate(conflict);
            }
            settle(conflict);
            return json("mutated-ingest", auth, "POST", "/v1/conflicts", conflict);
        }

        /** An ingest token naming another org, alone or hidden in a batch of its own org's conflicts. */
        Probe foreignIngest() {
            Auth auth = r.nextInt(5) == 0 ? anyCaller(Endpoint.INGEST) : token("ingest", own);
            ObjectNode foreign = conflict(other, other.key("fz-" + index));
            if (r.nextBoolean()) {
                return json("foreign-org-ingest", auth, "POST", "/v1/conflicts", foreign);
            }
            ObjectNode batch = NODES.objectNode();
            ArrayNode items = batch.putArray("conflicts");
            items.add(conflict(own, own.key("fz-" + index + "-mine")));
            items.insert(r.nextInt(2), foreign);
            return json("foreign-org-batch", auth, "POST", "/v1/conflicts", batch);
        }

        void mutate(ObjectNode conflict) {
            String field = pick("org_id", "dedup_key", "action", "target", "rules", "winner_policy_id", "detected_at");
            switch (r.nextInt(10)) {
                case 0 -> conflict.remove(field);
                case 1 -> conflict.set(pick("id", "synthesis_state", "inbox_status", "suggested_merge", "received_at",
                        "attempts", "__proto__", "DEDUP_KEY", "rules ", "org"), anyValue());
                case 2 -> conflict.set(field, anyValue());
                case 3 -> conflict.put(pick("dedup_key", "target", "winner_policy_id", "detected_at", "action"),
                        "h".repeat(pickInt(201, 301, 5_000, 100_000)));
                case 4 -> conflict.put(pick("dedup_key", "target", "winner_policy_id", "action", "detected_at"),
                        pick(INVALID_TEXT));
                case 5 -> oddButValid(conflict);
                case 6 -> mutateOrg(conflict);
                case 7 -> conflict.put("detected_at", pick("+999999-01-01T00:00:00Z", "-999999-01-01T00:00:00Z",
                        "294277-01-01T00:00:00Z", "0000-01-01T00:00:00Z", "1969-12-31T23:59:59Z", "2026-02-30T00:00:00Z",
                        "2026-11-20 10:15:00", "2026-11-20T10:15:00+02:00", "2026-11-20T10:15:00.123456789Z",
                        "1e9", "-4714-11-23T00:00:00Z", "9999-12-31T23:59:59.999999999Z", "now()"));
                case 8 -> mutateRules(conflict);
                default -> conflict.put("action", pick("TOOL_CALL", "tool_call ", "tool_call\u0000", "delete",
                        "tool_call' OR '1'='1", "data_export|x"));
            }
        }

        /**
         * After mutations, makes everything in the conflict that names an org name the org it will be stored
         * for, should it be stored: one mutation may move it to the other org and a later one drop its org_id.
         * A conflict that mixes orgs is a conflict the client made, not a leak the server made.
         */
        void settle(ObjectNode conflict) {
            JsonNode orgId = conflict.get("org_id");
            Org effective = orgId != null && orgId.isTextual() && orgId.textValue().equalsIgnoreCase(other.id().toString())
                    ? other : own;
            Org stranger = effective == own ? other : own;
            JsonNode key = conflict.get("dedup_key");
            if (key != null && key.isTextual() && key.textValue().contains(stranger.keyPrefix())) {
                conflict.put("dedup_key", key.textValue().replace(stranger.keyPrefix(), effective.keyPrefix()));
            }
            conflict.path("rules").forEach(rule -> {
                if (rule.isObject() && stranger.id().toString().equals(rule.path("scope_id").asText())) {
                    ((ObjectNode) rule).put("scope_id", effective.id().toString());
                }
            });
        }

        void mutateOrg(ObjectNode conflict) {
            switch (r.nextInt(4)) {
                case 0 -> {
                    // Another org's conflict: refused for an ingest token, legal for platform. Everything that
                    // names the org moves with it, so that the stored conflict says nothing of the first org.
                    conflict.put("org_id", other.id().toString());
                    conflict.put("dedup_key", other.key("fz-" + index));
                    conflict.path("rules").forEach(rule -> {
                        if (rule.isObject() && own.id().toString().equals(rule.path("scope_id").asText())) {
                            ((ObjectNode) rule).put("scope_id", other.id().toString());
                        }
                    });
                }
                case 1 -> conflict.put("org_id", own.id().toString().toUpperCase());
                case 2 -> conflict.put("org_id", pick("not-a-uuid", "{" + own.id() + "}", own.id() + "0", "1-1-1-1-1",
                        own.id().toString().replace("-", ""), " " + own.id(), "00000000-0000-0000-0000-00000000000g"));
                default -> conflict.set("org_id", anyValue());
            }
        }

        void mutateRules(ObjectNode conflict) {
            ArrayNode rules = usableRules(conflict);
            if (rules == null) {
                conflict.set("rules", anyValue());
                return;
            }
            switch (r.nextInt(10)) {
                case 0 -> conflict.set("rules", NODES.arrayNode());
                case 1 -> {
                    for (int i = 0; i < 50; i++) {
                        rules.add(rule("pol-extra-" + i, "member", "m", "allow", "x.*"));
                    }
                }
                case 2 -> conflict.set("rules", pick(NODES.objectNode(), NODES.textNode("pol-org-1"), NODES.numberNode(3)));
                case 3 -> rules.add("a rule as a string");
                case 4 -> rules.add(rule("pol-org-1", "member", "m", "allow", "dup.*"));
                case 5 -> conflict.put("winner_policy_id", "pol-nobody");
                case 6 -> ((ObjectNode) rules.get(r.nextInt(2))).put(pick("scope", "effect"),
                        pick("galaxy", "permit", "ORG", "deny ", "", "allow\u0000"));
                case 7 -> ((ObjectNode) rules.get(1)).remove(pick("scope_id", "policy_id", "target", "effect", "scope"));
                case 8 -> ((ObjectNode) rules.get(r.nextInt(2))).set(pick("target", "scope_id", "priority"),
                        deep(pickInt(10, 500, 2000)));
                default -> rules.add(rule("pol-plat-" + r.nextInt(9), "platform", null, "require_approval", "*"));
            }
        }

        /** Legal values that are awkward for SQL, CEF and Unicode handling; the conflict stays valid. */
        void oddButValid(ObjectNode conflict) {
            String odd = pick(ODD_VALID_TEXT);
            switch (r.nextInt(4)) {
                case 0 -> {
                    // Free text is no target; an awkward target is one the grammar still allows.
                    String target = pick(ODD_VALID_TARGETS);
                    conflict.put("target", target);
                    ArrayNode rules = usableRules(conflict);
                    if (rules != null) {
                        ((ObjectNode) rules.get(0)).put("target", "*");
                        ((ObjectNode) rules.get(1)).put("target", target);
                    }
                }
                case 1 -> conflict.put("dedup_key", conflict.path("dedup_key").asText("k") + odd);
                case 2 -> {
                    ArrayNode rules = usableRules(conflict);
                    if (rules != null) {
                        ((ObjectNode) rules.get(0)).put("policy_id", odd);
                        conflict.put("winner_policy_id", odd);
                    }
                }
                default -> {
                    ArrayNode rules = usableRules(conflict);
                    if (rules != null) {
                        ((ObjectNode) rules.get(1)).put("scope_id", odd);
                    }
                }
            }
        }

        /** The rules array while an earlier mutation has left at least its first two rules as objects. */
        ArrayNode usableRules(ObjectNode conflict) {
            JsonNode rules = conflict.get("rules");
            if (rules instanceof ArrayNode array && array.size() >= 2 && array.get(0).isObject() && array.get(1).isObject()) {
                return array;
            }
            return null;
        }

        String oddSuffix() {
            return r.nextInt(4) == 0 ? "-" + pick(ODD_VALID_TEXT) : "";
        }

        ObjectNode conflict(Org org, String key) {
            return HostileProbes.conflict(org.id(), key, pick("tool_call", "data_export", "knowledge_query"),
                    pick("jira.create_issue", "jira.*", "*", "drive.export", "kb.search"), "m-" + r.nextInt(1000),
                    r.nextInt(4) == 0);
        }

        ObjectNode rule(String policyId, String scope, String scopeId, String effect, String target) {
            return HostileProbes.rule(policyId, scope, scopeId, effect, target);
        }

        JsonNode anyValue() {
            return switch (r.nextInt(11)) {
                case 0 -> NODES.numberNode(42);
                case 1 -> NODES.numberNode(-1.5e308);
                case 2 -> NODES.numberNode(new BigDecimal("1e400"));
                case 3 -> NODES.booleanNode(true);
                case 4 -> NODES.nullNode();
                case 5 -> NODES.arrayNode();
                case 6 -> NODES.objectNode();
                case 7 -> NODES.arrayNode().add("a").add(1);
                case 8 -> NODES.objectNode().put("$gt", "");
                case 9 -> deep(pickInt(50, 900));
                default -> NODES.textNode(pick(ODD_VALID_TEXT));
            };
        }

        // ---- bodies that are not JSON, not UTF-8, not small ----

        Probe malformedBody() {
            boolean toResolve = r.nextInt(4) == 0;
            Auth auth = toResolve ? rightful(Endpoint.RESOLVE) : rightful(Endpoint.INGEST);
            String target = toResolve ? "/v1/conflicts/" + pickId() + "/resolve" : "/v1/conflicts";
            byte[] valid = bytes(toResolve ? NODES.objectNode().put("resolution", "manual")
                    : conflict(own, own.key("fz-" + index)));
            String kind;
            byte[] body;
            switch (r.nextInt(16)) {
                case 0 -> {
                    kind = "truncated-json";
                    body = Arrays.copyOf(valid, r.nextInt(valid.length));
                }
                case 1 -> {
                    kind = "trailing-garbage";
                    body = concat(valid, pick("}{", "]]", "\u0000", " x", ",", "{}").getBytes(StandardCharsets.UTF_8));
                }
                case 2 -> {
                    kind = "not-quite-json";
                    body = pick("{'dedup_key': 'a'}", "{dedup_key: 1}", "{\"a\": 1 /* c */}", "// c\n{}", "{\"a\": NaN}",
                            "{\"a\": Infinity}", "{\"a\": 0123}", "{\"a\": 0x10}", "{\"a\": +1}", "{\"a\":}", "{,}", "{\"a\" 1}",
                            "{\"a\": \"\\x41\"}", "{\"a\": \"\\u00\"}", "{\"a\": tru}").getBytes(StandardCharsets.UTF_8);
                }
                case 3 -> {
                    kind = "json-but-not-an-object";
                    body = pick("", " ", "\n\n", "null", "true", "42", "\"text\"", "[]", "[{}]", "[" + new String(valid,
                            StandardCharsets.UTF_8) + "]").getBytes(StandardCharsets.UTF_8);
                }
                case 4 -> {
                    kind = "random-bytes";
                    body = new byte[1 + r.nextInt(300)];
                    for (int i = 0; i < body.length; i++) {
                        body[i] = (byte) r.nextInt(256);
                    }
                }
                case 5 -> {
                    kind = "invalid-utf8";
                    body = splice(valid, pick(new byte[]{(byte) 0xC3, 0x28}, new byte[]{(byte) 0xFF},
                            new byte[]{(byte) 0xC0, (byte) 0xAF}, new byte[]{(byte) 0xED, (byte) 0xA0, (byte) 0x80},
                            new byte[]{(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, new byte[]{(byte) 0xE2, (byte) 0x82},
                            new byte[]{(byte) 0xF8, (byte) 0x88, (byte) 0x80, (byte) 0x80, (byte) 0x80}));
                }
                case 6 -> {
                    kind = "nul-bytes";
                    body = r.nextBoolean() ? splice(valid, new byte[]{0}) : concat(new byte[]{0, 0}, valid);
                }
                case 7 -> {
                    kind = "other-unicode-encoding";
                    Charset charset = pick(StandardCharsets.UTF_16LE, StandardCharsets.UTF_16BE, StandardCharsets.UTF_16,
                            Charset.forName("UTF-32BE"), Charset.forName("UTF-32LE"));
                    body = new String(valid, StandardCharsets.UTF_8).getBytes(charset);
                }
                case 8 -> {
                    kind = "broken-utf32";
                    body = pick(new byte[]{0, 0, 0, '{', 0, 0, 0, '"', 0, (byte) 0xD8, 0, 0},
                            new byte[]{'{', 0, 0, 0, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF},
                            new byte[]{0, 0, (byte) 0xFE, (byte) 0xFF, 0, 0x11, 0, 0},
                            new byte[]{0, 0, 0, '{', 0, 0, 0});
                }
                case 9 -> {
                    kind = "bom";
                    body = concat(new byte[]{(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, valid);
                }
                case 10 -> {
                    kind = "deep-nesting";
                    int depth = pickInt(500, 1001, 20_000, 200_000);
                    body = r.nextBoolean() ? ("[".repeat(depth) + "]".repeat(depth)).getBytes(StandardCharsets.US_ASCII)
                            : ("{\"a\":".repeat(depth) + "1" + "}".repeat(depth)).getBytes(StandardCharsets.US_ASCII);
                }
                case 11 -> {
                    kind = "long-number";
                    body = ("{\"dedup_key\": " + "9".repeat(pickInt(1001, 100_000)) + "}").getBytes(StandardCharsets.US_ASCII);
                }
                case 12 -> {
                    kind = "long-field-name";
                    body = ("{\"" + "n".repeat(pickInt(60_000, 300_000)) + "\": 1}").getBytes(StandardCharsets.US_ASCII);
                }
                case 13 -> {
                    kind = "many-fields";
                    StringBuilder text = new StringBuilder("{");
                    int fields = pickInt(2_000, 20_000);
                    for (int i = 0; i < fields; i++) {
                        text.append(i == 0 ? "" : ",").append("\"f").append(i).append("\":").append(i);
                    }
                    body = text.append('}').toString().getBytes(StandardCharsets.US_ASCII);
                }
                case 14 -> {
                    kind = "duplicate-keys";
                    body = new String(valid, StandardCharsets.UTF_8).replaceFirst("\\{",
                            "{\"dedup_key\": \"" + own.key("dup-" + index) + "\", ").getBytes(StandardCharsets.UTF_8);
                }
                default -> {
                    kind = "control-bytes-in-strings";
                    body = splice(valid, new byte[]{(byte) pickInt(1, 8, 10, 13, 27, 31, 127)});
                }
            }
            return withBody("malformed-body/" + kind, auth, "POST", target, "application/json", body, r.nextInt(5) == 0);
        }

        Probe hugeBody() {
            Auth auth = rightful(Endpoint.INGEST);
            return switch (r.nextInt(6)) {
                case 0 -> withBody("huge-body/declared", auth, "POST", "/v1/conflicts", "application/json", oversized, false);
                case 1 -> withBody("huge-body/chunked", auth, "POST", "/v1/conflicts", "application/json", oversized, true);
                case 2 -> withBody("huge-body/just-under-limit", auth, "POST", "/v1/conflicts", "application/json",
                        justUnder, r.nextBoolean());
                case 3 -> withBody("huge-body/gzip-bomb", auth.with(new Header("Content-Encoding", "gzip")), "POST",
                        "/v1/conflicts", "application/json", gzipBomb, r.nextBoolean());
                case 4 -> raw("huge-body/raw-chunked", auth, "POST", "/v1/conflicts", List.of(
                        new Header("Content-Type", "application/json"), new Header("Transfer-Encoding", "chunked")),
                        chunk(oversized, 1 + r.nextInt(256 * 1024)), false);
                default -> raw("huge-body/lying-length", auth, "POST", "/v1/conflicts", List.of(
                        new Header("Content-Type", "application/json"),
                        new Header("Content-Length", Long.toString(pickLong(3_000_000L, 9_999_999_999L, Long.MAX_VALUE)))),
                        "{\"a\":1}".getBytes(StandardCharsets.US_ASCII), false);
            };
        }

        Probe oddContentType() {
            Auth auth = rightful(Endpoint.INGEST);
            byte[] valid = bytes(conflict(own, own.key("fz-" + index)));
            if (r.nextInt(3) == 0) {
                String encoding = pick("gzip", "gzip", "deflate", "br", "identity", "gzip, gzip", "x-garbage");
                byte[] body = switch (r.nextInt(3)) {
                    case 0 -> gzip(valid);
                    case 1 -> Arrays.copyOf(gzip(valid), 20);
                    default -> valid;
                };
                return withBody("content-encoding/" + encoding, auth.with(new Header("Content-Encoding", encoding)),
                        "POST", "/v1/conflicts", "application/json", body, false);
            }
            String type = pick("text/plain", "application/xml", "application/x-www-form-urlencoded",
                    "multipart/form-data; boundary=x", "application/json; charset=utf-16", "application/JSON",
                    "application/vnd.api+json", "*/*", "application/json;;;=", "application/json; charset=\"", "/",
                    "application/json, text/plain", "application/json; charset=nope", "application/json; q=0",
                    "text/json", "application", null);
            return withBody("content-type/" + type, auth, "POST", "/v1/conflicts", type, valid, false);
        }

        // ---- reads and inbox actions ----

        Probe list() {
            Auth auth = anyCaller(Endpoint.LIST);
            List<String> params = new ArrayList<>();
            maybe(params, "limit", () -> enc(pick("1", "2", "50", "200", "0", "-1", "201", "2147483648", "1e3", " 5", "5 ",
                    "+5", "５", "0x10", "", "NaN", "99999999999999999999", "1;DROP TABLE api_tokens")));
            maybe(params, "cursor", this::inboxCursor);
            maybe(params, "inbox_status", () -> enc(pick("open", "acknowledged", "resolved", "OPEN", "open'--", "",
                    "open,resolved", "öpen", "open\u0000")));
            maybe(params, "synthesis_state", () -> enc(pick("pending", "in_progress", "done", "max_attempts_exceeded",
                    "DONE", "done' OR '1'='1", "", "*")));
            if (r.nextInt(8) == 0) {
                params.add(pick("limit=1&limit=500", "org_id=" + other.id(), "foo=bar", "cursor=&cursor=x", "=", "&&",
                        "inbox_status=open&inbox_status=resolved", "access_token=" + own.admin()));
            }
            return plain("list", auth, "GET", "/v1/conflicts" + query(params));
        }

        Probe getOne() {
            Auth auth = anyCaller(Endpoint.GET_ONE);
            return plain("get-one", auth, "GET", "/v1/conflicts/" + pickId());
        }

        Probe acknowledge() {
            Auth auth = anyCaller(Endpoint.ACKNOWLEDGE);
            String target = "/v1/conflicts/" + pickId() + "/acknowledge";
            if (r.nextInt(4) == 0) {
                return withBody("acknowledge-with-body", auth, "POST", target, pick("application/json", "text/plain"),
                        pick("{\"x\": 1}", "garbage", "", "{\"resolution\": \"manual\"}").getBytes(StandardCharsets.UTF_8),
                        false);
            }
            return withBody("acknowledge", auth, "POST", target, null, new byte[0], false);
        }

        Probe resolve() {
            Auth auth = anyCaller(Endpoint.RESOLVE);
            String target = "/v1/conflicts/" + pickId() + "/resolve";
            ObjectNode body = NODES.objectNode();
            body.put("resolution", pick("manual", "rejected_suggestion", "accepted_suggestion"));
            if (r.nextInt(4) != 0) {
                body.put("note", pick("", "narrowed by hand", "a|b=c\\d", "line1\nline2\r\n", "tab\there",
                        "'; UPDATE policy_conflicts SET org_id = NULL; --", "😀".repeat(r.nextInt(1, 1200)),
                        "y".repeat(pickInt(1999, 2000, 2001)), "\u0000", "nul\u0000inside", "\ud800", "bad\udc00pair",
                        "\u0085next-line", pick(ODD_VALID_TEXT)) + (r.nextInt(3) == 0 ? " fz-" + index : ""));
            }
            String kind = "resolve";
            if (r.nextInt(3) == 0) {
                kind = "mutated-resolve";
                switch (r.nextInt(7)) {
                    case 0 -> body.remove("resolution");
                    case 1 -> body.set("resolution", anyValue());
                    case 2 -> body.put("resolution", pick("MANUAL", "manual ", "accepted", "", "manual\u0000"));
                    case 3 -> body.set("note", anyValue());
                    case 4 -> body.put(pick("notes", "inbox_status", "resolved_at", "org_id"), "x");
                    case 5 -> body.put("note", "n".repeat(pickInt(2001, 100_000)));
                    default -> body.putNull(pick("note", "resolution"));
                }
            }
            return json(kind, auth, "POST", target, body);
        }

        Probe events() {
            Auth auth = anyCaller(Endpoint.EVENTS);
            List<String> params = new ArrayList<>();
            maybe(params, "format", () -> enc(pick("ndjson", "cef", "CEF", "json", "", "cef;", "ndjson\u0000", "xml")));
            maybe(params, "after", this::eventCursor);
            // Mostly small pages: a full default page late in the run is a megabyte and says nothing new.
            if (r.nextInt(10) != 0) {
                params.add("limit=" + enc(r.nextInt(10) == 0
                        ? pick("0", "-5", "10001", "abc", "10000", "", "2147483648") : Integer.toString(1 + r.nextInt(40))));
            }
            maybe(params, "org_id", () -> enc(pick(own.id().toString(), other.id().toString(),
                    own.id().toString().toUpperCase(), "00000000-0000-0000-0000-000000000000", "nope", "' OR 1=1 --")));
            return plain("events", auth, "GET", "/v1/events" + query(params));
        }

        Probe openApi() {
            Auth auth = r.nextBoolean() ? Auth.none() : anyCaller(Endpoint.OPENAPI);
            return switch (r.nextInt(5)) {
                case 0 -> plain("openapi/head", auth, "HEAD", "/v1/openapi.yaml");
                case 1 -> plain("openapi/accept-json", auth.with(new Header("Accept", "application/json")), "GET",
                        "/v1/openapi.yaml");
                case 2 -> plain("openapi/query", auth, "GET", "/v1/openapi.yaml?" + enc(pick(ODD_VALID_TEXT)) + "=1");
                default -> plain("openapi", auth, "GET", "/v1/openapi.yaml");
            };
        }

        /** Unknown paths, wrong methods on known ones, and paths the router should not normalise into a match. */
        Probe strayRequest() {
            Auth auth = r.nextBoolean() ? anyCaller(Endpoint.OTHER) : token("org_admin", own);
            String id = own.conflicts().get(r.nextInt(own.conflicts().size())).toString();
            if (r.nextBoolean()) {
                String method = pick("DELETE", "PUT", "PATCH", "HEAD", "OPTIONS", "TRACE", "FOO", "PROPFIND", "GET", "POST");
                String target = pick("/v1/conflicts", "/v1/conflicts/" + id, "/v1/conflicts/" + id + "/acknowledge",
                        "/v1/conflicts/" + id + "/resolve", "/v1/events", "/v1/openapi.yaml");
                Probe p = method.equals("POST") || method.equals("PUT") || method.equals("PATCH")
                        ? withBody("wrong-method", auth, method, target, "application/json", "{}".getBytes(StandardCharsets.US_ASCII), false)
                        : plain("wrong-method", auth, method, target);
                return p;
            }
            String target = pick("/", "/v1", "/v1/", "/v1/conflict", "/v2/conflicts", "/v1/conflicts/" + id + "/x/y",
                    "/V1/CONFLICTS", "/v1/events/" + id, "/v1/openapi.json", "/healthcheck", "/metrics", "/admin",
                    "/favicon.ico", "/v1/conflicts/" + id + "/acknowledge/", "/v1/conflicts/" + id + "/resolve/extra",
                    "/v1/conflicts%2F" + id, "/v1/conflicts/" + id + "%2Facknowledge", "/v1/./conflicts",
                    "/v1/conflicts/" + id + "/..", "/v1/conflicts;x=1", "/v1/conflicts/" + id + ";jsessionid=1",
                    "/" + "a".repeat(pickInt(100, 7_000, 70_000)), "/v1/conflicts?" + "q".repeat(pickInt(100, 9_000)) + "=1");
            return plain("unknown-path", auth, pick("GET", "POST"), target);
        }

        /** What {@code java.net.http} will not send: broken request lines and headers, lying framing. */
        Probe rawProtocol() {
            Auth auth = r.nextInt(3) == 0 ? anyCaller(Endpoint.LIST) : token("org_admin", own);
            String id = pickId();
            List<Header> none = List.of();
            byte[] noBody = new byte[0];
            String tok = own.admin();
            return switch (r.nextInt(30)) {
                case 0 -> rawLine("raw/extra-token", auth, "GET /v1/conflicts HTTP/1.1 extra");
                case 1 -> rawLine("raw/double-space", auth, "GET  /v1/conflicts HTTP/1.1");
                case 2 -> rawLine("raw/lowercase-method", auth, "get /v1/conflicts HTTP/1.1");
                case 3 -> rawLine("raw/bad-version", auth, pick("GET /v1/conflicts HTTP/9.9", "GET /v1/conflicts HTTP/1.x",
                        "GET /v1/conflicts HTTP/2.0", "GET /v1/conflicts", "GET /v1/conflicts FTP/1.1"));
                case 4 -> rawLine("raw/http10", auth, "GET /v1/conflicts HTTP/1.0");
                case 5 -> rawLine("raw/absolute-form", auth, "GET http://127.0.0.1:" + port + "/v1/conflicts HTTP/1.1");
                case 6 -> rawLine("raw/asterisk-or-connect", auth, pick("GET * HTTP/1.1", "OPTIONS * HTTP/1.1",
                        "CONNECT 127.0.0.1:1 HTTP/1.1"));
                case 7 -> rawLine("raw/bad-percent", auth, pick("GET /v1/conflicts?limit=%zz HTTP/1.1",
                        "GET /v1/conflicts/%ZZ HTTP/1.1", "GET /v1/conflicts/%00 HTTP/1.1", "GET /v1/conflicts/% HTTP/1.1",
                        "GET /v1/events?after=%E0%A4 HTTP/1.1", "GET /v1/conflicts?cursor=%FF%FE HTTP/1.1",
                        "GET /v1/%2e%2e/v1/conflicts HTTP/1.1", "GET /v1/conflicts/..%2f HTTP/1.1",
                        "GET /v1/conflicts/" + id + "%00 HTTP/1.1"));
                case 8 -> rawLineBytes("raw/non-ascii-path", auth, concat("GET /v1/conflicts/".getBytes(StandardCharsets.US_ASCII),
                        pick(new byte[]{(byte) 0xFF, (byte) 0xFE}, "ü".getBytes(StandardCharsets.UTF_8),
                                new byte[]{(byte) 0xC3, 0x28}), " HTTP/1.1".getBytes(StandardCharsets.US_ASCII)));
                case 9 -> rawLine("raw/space-in-target", auth, "GET /v1/conflicts?inbox_status=open resolved HTTP/1.1");
                case 10 -> raw("raw/no-host", auth, "GET", "/v1/conflicts", none, noBody, true);
                case 11 -> raw("raw/two-hosts", auth, "GET", "/v1/conflicts", List.of(new Header("Host", "evil.example")),
                        noBody, false);
                case 12 -> rawHead("raw/header-without-colon", auth, "GET", "/v1/conflicts", "X-Broken header line\r\n");
                case 13 -> rawHead("raw/space-in-header-name", auth, "GET", "/v1/conflicts", "Authori zation: Bearer " + tok + "\r\n");
                case 14 -> rawHeadBytes("raw/nul-in-header", Auth.nobody("token with a NUL"), "GET", "/v1/conflicts",
                        concat(("Authorization: Bearer " + tok).getBytes(StandardCharsets.US_ASCII), new byte[]{0, 'x', '\r', '\n'}));
                case 15 -> rawHead("raw/folded-header", Auth.nobody("folded token"), "GET", "/v1/conflicts",
                        "Authorization: Bearer\r\n " + tok + "\r\n");
                case 16 -> rawHeadBytes("raw/non-ascii-token", Auth.nobody("non-ASCII token"), "GET", "/v1/conflicts",
                        concat("Authorization: Bearer msk_".getBytes(StandardCharsets.US_ASCII),
                                pick("ü€".getBytes(StandardCharsets.UTF_8), new byte[]{(byte) 0xFF, (byte) 0xC0}),
                                "\r\n".getBytes(StandardCharsets.US_ASCII)));
                case 17 -> rawHead("raw/huge-header", auth, "GET", "/v1/conflicts",
                        "X-Filler: " + "f".repeat(pickInt(9_000, 70_000)) + "\r\n");
                case 18 -> {
                    StringBuilder many = new StringBuilder();
                    for (int i = 0, n = pickInt(150, 1500); i < n; i++) {
                        many.append("X-H").append(i).append(": ").append(i).append("\r\n");
                    }
                    yield rawHead("raw/many-headers", auth, "GET", "/v1/conflicts", many.toString());
                }
                case 19 -> raw("raw/bad-content-length", ingestAuth(), "POST", "/v1/conflicts", List.of(
                        new Header("Content-Type", "application/json"),
                        new Header("Content-Length", pick("-1", "abc", "10, 20", "0x10", "１０", " 7", "7 7"))),
                        "{\"a\":1}".getBytes(StandardCharsets.US_ASCII), false);
                case 20 -> raw("raw/two-content-lengths", ingestAuth(), "POST", "/v1/conflicts", List.of(
                        new Header("Content-Type", "application/json"), new Header("Content-Length", "7"),
                        new Header("Content-Length", "2")), "{\"a\":1}".getBytes(StandardCharsets.US_ASCII), false);
                case 21 -> raw("raw/length-and-chunked", ingestAuth(), "POST", "/v1/conflicts", List.of(
                        new Header("Content-Type", "application/json"), new Header("Content-Length", "4"),
                        new Header("Transfer-Encoding", "chunked")), chunk(validIngestBytes(), 16), false);
                case 22 -> raw("raw/bad-chunk-size", ingestAuth(), "POST", "/v1/conflicts", List.of(
                        new Header("Content-Type", "application/json"), new Header("Transfer-Encoding", "chunked")),
                        (pick("zz", "-1", "ffffffffffffffffff", "7;ext=\u0001", "") + "\r\n{\"a\":1}\r\n0\r\n\r\n")
                                .getBytes(StandardCharsets.ISO_8859_1), false);
                case 23 -> raw("raw/odd-transfer-encoding", ingestAuth(), "POST", "/v1/conflicts", List.of(
                        new Header("Content-Type", "application/json"),
                        new Header("Transfer-Encoding", pick("gzip, chunked", "identity", "chunked, chunked", "xchunked", "CHUNKED"))),
                        chunk(validIngestBytes(), 64), false);
                case 24 -> raw("raw/truncated-body", ingestAuth(), "POST", "/v1/conflicts", List.of(
                        new Header("Content-Type", "application/json"), new Header("Content-Length", "500")),
                        Arrays.copyOf(validIngestBytes(), 40), false);
                case 25 -> raw("raw/truncated-chunks", ingestAuth(), "POST", "/v1/conflicts", List.of(
                        new Header("Content-Type", "application/json"), new Header("Transfer-Encoding", "chunked")),
                        "100\r\n{\"a\":".getBytes(StandardCharsets.US_ASCII), false);
                case 26 -> raw("raw/expect-continue", ingestAuth(), "POST", "/v1/conflicts", List.of(
                        new Header("Content-Type", "application/json"), new Header("Expect", pick("100-continue", "200-ok"))),
                        validIngestBytes(), false);
                case 27 -> {
                    StringBuilder request = new StringBuilder("GET /v1/conflicts HTTP/1.1\nHost: 127.0.0.1:" + port + "\n");
                    auth.headers().forEach(h -> request.append(h.name()).append(": ").append(h.value()).append('\n'));
                    yield rawBytes("raw/bare-lf", auth, "GET", "/v1/conflicts",
                            request.append("Connection: close\n\n").toString().getBytes(StandardCharsets.UTF_8));
                }
                case 28 -> rawBytes("raw/garbage", Auth.nobody("no request at all"), "?", "?", pick(
                        new byte[]{0x16, 0x03, 0x01, 0x00, (byte) 0xA5, 0x01, 0x00},
                        "\r\n\r\n".getBytes(StandardCharsets.US_ASCII),
                        "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII),
                        new byte[]{0, 0, 0, 0}));
                default -> rawLine("raw/long-uri", auth, "GET /v1/conflicts?cursor=" + "c".repeat(pickInt(9_000, 100_000)) + " HTTP/1.1");
            };
        }

        // ---- who asks ----

        /** The right token for the endpoint, mostly; else a wrong role, a revoked, forged or missing token. */
        Auth anyCaller(Endpoint endpoint) {
            int roll = r.nextInt(100);
            if (roll < 72) {
                return rightful(endpoint);
            }
            if (roll < 80) {
                return wrongRole(endpoint);
            }
            if (roll < 85) {
                return revoked();
            }
            if (roll < 93) {
                return forged();
            }
            if (roll < 96) {
                return Auth.none();
            }
            return oddlyPresented();
        }

        Auth rightful(Endpoint endpoint) {
            return switch (endpoint) {
                case INGEST -> r.nextInt(10) < 3 ? platform() : token("ingest", own);
                case EVENTS -> r.nextInt(10) < 3 ? platform() : token("siem", own);
                case LIST, GET_ONE, ACKNOWLEDGE, RESOLVE -> token("org_admin", own);
                default -> r.nextInt(4) == 0 ? platform() : token(pick(ROLES), own);
            };
        }

        Auth ingestAuth() {
            return rightful(Endpoint.INGEST);
        }

        Auth wrongRole(Endpoint endpoint) {
            List<String> wrong = new ArrayList<>();
            for (String role : List.of("org_admin", "ingest", "siem", "platform")) {
                if (endpoint.roles == null || !endpoint.roles.contains(role)) {
                    wrong.add(role);
                }
            }
            String role = wrong.isEmpty() ? "siem" : wrong.get(r.nextInt(wrong.size()));
            return role.equals("platform") ? platform() : token(role, own);
        }

        Auth token(String role, Org org) {
            return new Auth(new Caller(role + " " + org.name(), role, org.id(), true),
                    List.of(new Header("Authorization", "Bearer " + org.token(role))));
        }

        Auth platform() {
            return new Auth(new Caller("platform", "platform", null, true),
                    List.of(new Header("Authorization", "Bearer " + targets.platform())));
        }

        Auth revoked() {
            if (r.nextInt(4) == 0) {
                return new Auth(Caller.nobody("revoked platform"),
                        List.of(new Header("Authorization", "Bearer " + targets.revokedPlatform())));
            }
            String role = pick(ROLES);
            return new Auth(Caller.nobody("revoked " + role + " " + own.name()),
                    List.of(new Header("Authorization", "Bearer " + own.revoked(role))));
        }

        Auth forged() {
            String real = own.token(pick(ROLES));
            String forged = switch (r.nextInt(10)) {
                case 0 -> "msk_" + randomText(43);
                case 1 -> flipOneCharacter(real);
                case 2 -> real + "x";
                case 3 -> real.substring(0, real.length() - 1 - r.nextInt(10));
                case 4 -> "msk_" + "a".repeat(125);
                case 5 -> "msk_" + "b".repeat(pickInt(2_000, 20_000));
                case 6 -> "msk_' OR '1'='1";
                case 7 -> "";
                case 8 -> real.substring(4);
                default -> real.toUpperCase();
            };
            String scheme = r.nextInt(6) == 0 ? pick("Basic", "Token", "Bearer:", "Bearerx") : "Bearer";
            return new Auth(Caller.nobody("forged token"), List.of(new Header("Authorization", scheme + " " + forged)));
        }

        /** A real token presented oddly; whether it counts is the server's call, but it can only be own's. */
        Auth oddlyPresented() {
            String role = pick(ROLES);
            String real = own.token(role);
            Caller caller = new Caller("oddly presented " + role + " " + own.name(), role, own.id(), true);
            List<Header> headers = switch (r.nextInt(4)) {
                case 0 -> List.of(new Header("Authorization", "bearer " + real));
                case 1 -> List.of(new Header("Authorization", "Bearer  " + real));
                case 2 -> List.of(new Header("Authorization", "Bearer " + real),
                        new Header("Authorization", "Bearer " + other.token(role)));
                default -> List.of(new Header("Authorization", "Bearer " + real + " trailing"));
            };
            // Two credentials at once are ambiguous: the server must refuse, not pick one for the client.
            return new Auth(headers.size() > 1 ? Caller.nobody("two tokens at once") : caller, headers);
        }

        // ---- ids and cursors ----

        String pickId() {
            int roll = r.nextInt(100);
            if (roll < 55) {
                return own.conflicts().get(r.nextInt(own.conflicts().size())).toString();
            }
            if (roll < 75) {
                return other.conflicts().get(r.nextInt(other.conflicts().size())).toString();
            }
            if (roll < 82) {
                return new UUID(r.nextLong(), r.nextLong()).toString();
            }
            String mine = own.conflicts().get(0).toString();
            return enc(pick("12", mine.toUpperCase(), "{" + mine + "}", mine + "x", "1-1-1-1-1", mine.replace("-", ""),
                    "00000000-0000-0000-0000-000000000000", "' OR 1=1 --", "١٢٣", "null", "..", ".", "%2e",
                    "x".repeat(5_000), mine.substring(1), " " + mine, "🙂"));
        }

        String inboxCursor() {
            return enc(switch (r.nextInt(6)) {
                case 0 -> own.inboxCursor();
                case 1 -> other.inboxCursor();
                case 2 -> flipOneCharacter(own.inboxCursor());
                case 3 -> b64("c1:" + pick("0", "-1", Long.toString(Long.MIN_VALUE), Long.toString(Long.MAX_VALUE),
                        "253402300800000000", "-62135596800000000", "-210866803200000000", "abc", "1e5", "")
                        + ":" + pick(own.conflicts().get(0).toString(), "x", "1-1-1-1-1", "00000000-0000-0000-0000-000000000000"));
                case 4 -> b64(pick("c2:1:" + own.conflicts().get(0), "c1:1", "c1:1:2:3", "", "\u0000", "c1::"));
                default -> pick("!!!", "abc==", "", "x".repeat(5_000), "Yz", "%%%", "' OR '1'='1");
            });
        }

        String eventCursor() {
            return enc(switch (r.nextInt(6)) {
                case 0 -> own.eventCursor();
                case 1 -> other.eventCursor();
                case 2 -> targets.platformEventCursor();
                case 3 -> b64("e1:" + pick("0", "18446744073709551615", "18446744073709551616", "-1", "x", "")
                        + ":" + pick("0", "-1", Long.toString(Long.MAX_VALUE), "9223372036854775808", "1"));
                case 4 -> flipOneCharacter(own.eventCursor());
                default -> pick("e2", b64("e2:1:1"), "!!!", "", b64("e1:1:1:1"), "x".repeat(3_000));
            });
        }

        // ---- building requests ----

        Probe json(String kind, Auth auth, String method, String target, JsonNode body) {
            return withBody(kind, auth, method, target, "application/json", bytes(body), r.nextInt(10) == 0);
        }

        Probe plain(String kind, Auth auth, String method, String target) {
            return new Probe(index, kind, auth.caller(), method, target, auth.headers(), null, false, null);
        }

        Probe withBody(String kind, Auth auth, String method, String target, String contentType, byte[] body,
                       boolean chunked) {
            List<Header> headers = new ArrayList<>(auth.headers());
            if (contentType != null) {
                headers.add(new Header("Content-Type", contentType));
            }
            return new Probe(index, kind, auth.caller(), method, target, headers, body, chunked, null);
        }

        /** A raw request line with the usual headers after it. */
        Probe rawLine(String kind, Auth auth, String requestLine) {
            return rawLineBytes(kind, auth, requestLine.getBytes(StandardCharsets.UTF_8));
        }

        Probe rawLineBytes(String kind, Auth auth, byte[] requestLine) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeBytes(requestLine);
            out.writeBytes(("\r\nHost: 127.0.0.1:" + port + "\r\n").getBytes(StandardCharsets.US_ASCII));
            auth.headers().forEach(h -> out.writeBytes((h.name() + ": " + h.value() + "\r\n").getBytes(StandardCharsets.UTF_8)));
            out.writeBytes("Connection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            String line = new String(requestLine, StandardCharsets.UTF_8);
            String[] parts = line.split(" ");
            return new Probe(index, kind, auth.caller(), parts[0], parts.length > 1 ? parts[1] : "", auth.headers(), null,
                    false, out.toByteArray());
        }

        Probe rawHead(String kind, Auth auth, String method, String target, String extraHeaderLines) {
            return rawHeadBytes(kind, auth, method, target, extraHeaderLines.getBytes(StandardCharsets.UTF_8));
        }

        /** A well-formed request line and Host, then header bytes exactly as given. */
        Probe rawHeadBytes(String kind, Auth auth, String method, String target, byte[] extraHeaderLines) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeBytes((method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n").getBytes(StandardCharsets.US_ASCII));
            auth.headers().forEach(h -> out.writeBytes((h.name() + ": " + h.value() + "\r\n").getBytes(StandardCharsets.UTF_8)));
            out.writeBytes(extraHeaderLines);
            out.writeBytes("Connection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            return new Probe(index, kind, auth.caller(), method, target, auth.headers(), null, false, out.toByteArray());
        }

        /**
         * A raw request whose framing headers are the caller's: no Content-Length is added, so {@code headers}
         * decide how the body is delimited (or fail to).
         */
        Probe raw(String kind, Auth auth, String method, String target, List<Header> headers, byte[] body, boolean noHost) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeBytes((method + " " + target + " HTTP/1.1\r\n").getBytes(StandardCharsets.US_ASCII));
            if (!noHost) {
                out.writeBytes(("Host: 127.0.0.1:" + port + "\r\n").getBytes(StandardCharsets.US_ASCII));
            }
            auth.headers().forEach(h -> out.writeBytes((h.name() + ": " + h.value() + "\r\n").getBytes(StandardCharsets.UTF_8)));
            boolean framed = headers.stream().anyMatch(h -> h.name().equalsIgnoreCase("Content-Length")
                    || h.name().equalsIgnoreCase("Transfer-Encoding"));
            headers.forEach(h -> out.writeBytes((h.name() + ": " + h.value() + "\r\n").getBytes(StandardCharsets.ISO_8859_1)));
            if (!framed && body.length > 0) {
                out.writeBytes(("Content-Length: " + body.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            }
            out.writeBytes("Connection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(body);
            List<Header> all = new ArrayList<>(auth.headers());
            all.addAll(headers);
            return new Probe(index, kind, auth.caller(), method, target, all, body, false, out.toByteArray());
        }

        Probe rawBytes(String kind, Auth auth, String method, String target, byte[] request) {
            return new Probe(index, kind, auth.caller(), method, target, auth.headers(), null, false, request);
        }

        byte[] validIngestBytes() {
            return bytes(conflict(own, own.key("fz-" + index)));
        }

        // ---- small helpers ----

        void maybe(List<String> params, String name, Supplier<String> value) {
            if (r.nextInt(3) != 0) {
                params.add(name + "=" + value.get());
            }
        }

        String query(List<String> params) {
            return params.isEmpty() ? "" : "?" + String.join("&", params);
        }

        /** Query and path text for java.net.http: everything outside the unreserved set percent-encoded. */
        String enc(String value) {
            return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
        }

        String b64(String raw) {
            return Base64.getUrlEncoder().withoutPadding().encodeToString(raw.getBytes(StandardCharsets.UTF_8));
        }

        String flipOneCharacter(String text) {
            if (text.isEmpty()) {
                return "x";
            }
            char[] chars = text.toCharArray();
            int at = r.nextInt(chars.length);
            chars[at] = chars[at] == 'A' ? 'B' : 'A';
            return new String(chars);
        }

        String randomText(int length) {
            String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
            StringBuilder text = new StringBuilder(length);
            for (int i = 0; i < length; i++) {
                text.append(alphabet.charAt(r.nextInt(alphabet.length())));
            }
            return text.toString();
        }

        JsonNode deep(int depth) {
            JsonNode node = NODES.textNode("bottom");
            for (int i = 0; i < depth; i++) {
                node = NODES.arrayNode().add(node);
            }
            return node;
        }

        byte[] splice(byte[] into, byte[] insert) {
            int at = r.nextInt(into.length + 1);
            return concat(Arrays.copyOf(into, at), insert, Arrays.copyOfRange(into, at, into.length));
        }

        @SafeVarargs
        final <T> T pick(T... choices) {
            return choices[r.nextInt(choices.length)];
        }

        int pickInt(int... choices) {
            return choices[r.nextInt(choices.length)];
        }

        long pickLong(long... choices) {
            return choices[r.nextInt(choices.length)];
        }
    }

    /** A caller and the headers that present it. */
    record Auth(Caller caller, List<Header> headers) {
        static Auth none() {
            return new Auth(Caller.nobody("no token"), List.of());
        }

        static Auth nobody(String label) {
            return new Auth(Caller.nobody(label), List.of());
        }

        Auth with(Header header) {
            List<Header> all = new ArrayList<>(headers);
            all.add(header);
            return new Auth(caller, all);
        }
    }

    /** A valid conflict: an org rule that wins over a member rule, with a platform default when asked. */
    static ObjectNode conflict(UUID org, String key, String action, String target, String member, boolean platformRule) {
        ObjectNode n = NODES.objectNode();
        n.put("org_id", org.toString());
        n.put("dedup_key", key);
        n.put("action", action);
        n.put("target", target);
        ArrayNode rules = n.putArray("rules");
        // Both rules apply to the target, as the engine reports them: the org's on its family, the member's on it.
        rules.add(rule("pol-org-1", "org", org.toString(), "deny", family(target)));
        rules.add(rule("pol-mbr-2", "member", member, "allow", target));
        if (platformRule) {
            rules.add(rule("pol-plat-3", "platform", null, "require_approval", "*"));
        }
        n.put("winner_policy_id", "pol-org-1");
        n.put("detected_at", "2026-11-20T10:15:00Z");
        return n;
    }

    /** {@code jira.*} for {@code jira.create_issue} and for {@code jira.*}; {@code *} for a one-word target. */
    static String family(String target) {
        int dot = target.indexOf('.');
        return dot > 0 ? target.substring(0, dot) + ".*" : "*";
    }

    /** The seeded conflicts, varied by {@code n} in action and target. */
    static ObjectNode seedConflict(UUID org, String key, int n) {
        String[] actions = {"tool_call", "data_export", "knowledge_query"};
        String[] targets = {"jira.create_issue", "drive.export", "kb.search", "*"};
        return conflict(org, key, actions[n % actions.length], targets[n % targets.length], "m-" + n, n % 3 == 0);
    }

    static ObjectNode rule(String policyId, String scope, String scopeId, String effect, String target) {
        ObjectNode rule = NODES.objectNode().put("policy_id", policyId).put("scope", scope);
        if (scopeId != null) {
            rule.put("scope_id", scopeId);
        }
        return rule.put("effect", effect).put("target", target);
    }

    /**
     * A JSON document as bytes. A lone surrogate cannot be encoded as UTF-8 (Java would send '?'), so it goes as
     * a JSON escape, which is how a client gets one to the server.
     */
    static byte[] bytes(JsonNode node) {
        String text;
        try {
            text = JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean paired = Character.isHighSurrogate(c) && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1));
            if (paired) {
                out.append(c).append(text.charAt(++i));
            } else if (Character.isSurrogate(c)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    /** {@code body} in chunked transfer coding, in pieces of {@code size} bytes. */
    static byte[] chunk(byte[] body, int size) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int at = 0; at < body.length; at += size) {
            int n = Math.min(size, body.length - at);
            out.writeBytes((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body, at, n);
            out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        out.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }

    static byte[] gzip(byte[] data) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream zip = new GZIPOutputStream(out)) {
            zip.write(data);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
