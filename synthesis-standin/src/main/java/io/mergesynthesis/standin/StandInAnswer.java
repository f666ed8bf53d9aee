package io.mergesynthesis.standin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * The stand-in's own answer to a conflict, worked out the way the stub does: the winner's effect holds, the
 * merged rule is the winner's, and each loser is kept (same effect, or disjoint targets), narrowed (broader
 * than the winner) or removed (covered by the winner). Deterministic, so benchmarks compare like with like.
 */
final class StandInAnswer {

    private StandInAnswer() {
    }

    /** @throws IllegalArgumentException when the conflict has no rule with the winner's policy id */
    static ObjectNode forConflict(ObjectMapper mapper, JsonNode conflict, double confidence) {
        String winnerId = conflict.path("winner_policy_id").asText();
        JsonNode winner = null;
        List<JsonNode> losers = new ArrayList<>();
        for (JsonNode rule : conflict.path("rules")) {
            if (rule.path("policy_id").asText().equals(winnerId) && winner == null) {
                winner = rule;
            } else {
                losers.add(rule);
            }
        }
        if (winner == null) {
            throw new IllegalArgumentException("the conflict has no rule " + winnerId);
        }
        ObjectNode answer = mapper.createObjectNode();
        answer.put("resolved_effect", winner.path("effect").asText());
        ObjectNode merged = answer.putObject("merged_rule");
        merged.put("scope", winner.path("scope").asText());
        merged.set("scope_id", winner.path("scope_id").isTextual() ? winner.get("scope_id") : mapper.nullNode());
        merged.put("effect", winner.path("effect").asText());
        merged.put("target", winner.path("target").asText());
        merged.put("based_on_policy_id", winnerId);
        ArrayNode actions = answer.putArray("loser_actions");
        for (JsonNode loser : losers) {
            ObjectNode action = actions.addObject();
            action.put("policy_id", loser.path("policy_id").asText());
            String[] decision = decide(winner, loser);
            action.put("action", decision[0]);
            action.put("detail", decision[1]);
        }
        answer.put("rationale", "The " + winner.path("scope").asText() + " rule " + winnerId + " wins; "
                + (losers.isEmpty() ? "it is the only rule involved." : "each other rule is kept, narrowed or removed so that it no longer contradicts it."));
        answer.put("confidence", confidence);
        return answer;
    }

    /** An owner no rule of any conflict has: the stand-in's foreign owner. */
    static final String FOREIGN_OWNER_ID = "f0f0f0f0-0000-4000-8000-00000000f0f0";

    /**
     * Makes {@code answer}, the stand-in's correct answer to {@code conflict}, unsafe in the way {@code kind}
     * says; leaves it as it is when the conflict has nothing to break that way.
     */
    static void spoil(ObjectMapper mapper, ObjectNode answer, JsonNode conflict, UnsafeMerge kind) {
        String winnerId = conflict.path("winner_policy_id").asText();
        JsonNode winner = null;
        List<JsonNode> losers = new ArrayList<>();
        for (JsonNode rule : conflict.path("rules")) {
            if (rule.path("policy_id").asText().equals(winnerId) && winner == null) {
                winner = rule;
            } else {
                losers.add(rule);
            }
        }
        ObjectNode merged = (ObjectNode) answer.get("merged_rule");
        switch (kind) {
            case FLIP_EFFECT -> {
                String flipped = "allow".equals(winner.path("effect").asText()) ? "deny" : "allow";
                answer.put("resolved_effect", flipped);
                merged.put("effect", flipped);
            }
            case WIDEN_TARGET -> merged.put("target", "*");
            case FOREIGN_OWNER -> merged.put("scope_id", FOREIGN_OWNER_ID);
            case BASED_ON_LOSER -> losers.stream().findFirst().ifPresent(loser -> {
                merged.put("scope", loser.path("scope").asText());
                merged.set("scope_id", loser.path("scope_id").isTextual() ? loser.get("scope_id") : mapper.nullNode());
                merged.put("effect", loser.path("effect").asText());
                merged.put("target", loser.path("target").asText());
                merged.put("based_on_policy_id", loser.path("policy_id").asText());
            });
            case KEEP_CONTRADICTING_LOSER -> {
                for (JsonNode action : answer.get("loser_actions")) {
                    if (!"keep".equals(action.path("action").asText())) {
                        ((ObjectNode) action).put("action", "keep").put("detail", "no change needed");
                        break;
                    }
                }
            }
            case REMOVE_STRICTER_LOSER -> {
                for (JsonNode loser : losers) {
                    if (strictness(loser) > strictness(winner)
                            && !covers(winner.path("target").asText(), loser.path("target").asText())) {
                        actionFor(answer, loser.path("policy_id").asText())
                                .put("action", "remove").put("detail", "no longer needed");
                        break;
                    }
                }
            }
        }
    }

    private static ObjectNode actionFor(ObjectNode answer, String policyId) {
        for (JsonNode action : answer.get("loser_actions")) {
            if (action.path("policy_id").asText().equals(policyId)) {
                return (ObjectNode) action;
            }
        }
        throw new IllegalStateException("the answer has no action for " + policyId);
    }

    private static int strictness(JsonNode rule) {
        return switch (rule.path("effect").asText()) {
            case "deny" -> 2;
            case "require_approval" -> 1;
            default -> 0;
        };
    }

    private static String[] decide(JsonNode winner, JsonNode loser) {
        String winnerTarget = winner.path("target").asText();
        String loserTarget = loser.path("target").asText();
        if (winner.path("effect").asText().equals(loser.path("effect").asText())) {
            return new String[] {"keep", "same effect as the winner, no contradiction"};
        }
        if (covers(loserTarget, winnerTarget) && !loserTarget.equals(winnerTarget)) {
            return new String[] {"narrow", "exclude " + winnerTarget + " from " + loserTarget};
        }
        if (covers(winnerTarget, loserTarget)) {
            return new String[] {"remove", "fully shadowed by the winner"};
        }
        return new String[] {"keep", "targets do not overlap"};
    }

    /** {@code *} covers everything, {@code a.*} every name starting with {@code a.}, a name only itself. */
    private static boolean covers(String outer, String inner) {
        if (outer.equals("*")) {
            return true;
        }
        if (inner.equals("*")) {
            return false;
        }
        if (outer.length() > 2 && outer.endsWith(".*")) {
            return inner.startsWith(outer.substring(0, outer.length() - 1));
        }
        return outer.equals(inner);
    }
}
