package io.mergesynthesis.llm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.Iterator;
import java.util.Map;

/**
 * Text from a provider made fit to store: PostgreSQL refuses a NUL in {@code text} and {@code \u0000} in
 * {@code jsonb}, and a lone surrogate is not UTF-8 at all. A provider may send either anywhere (an id, a rationale,
 * an error message), and one such character used to fail the store of the merge and of the attempt alike, so
 * everything read from a provider's body passes through here first. NULs are dropped; a lone surrogate becomes
 * U+FFFD, the replacement character, so that a reader still sees something was there.
 */
public final class ProviderText {

    private ProviderText() {
    }

    public static String clean(String text) {
        if (text == null || isClean(text)) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == 0) {
                continue;
            }
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                out.append(c).append(text.charAt(++i));
            } else if (Character.isSurrogate(c)) {
                out.append('\uFFFD');
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    static boolean isClean(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == 0) {
                return false;
            }
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return false;
            }
        }
        return true;
    }

    /** The same tree with every string and field name cleaned; untouched when there was nothing to clean. */
    static JsonNode clean(JsonNode node) {
        if (node == null) {
            return null;
        }
        if (node.isTextual()) {
            String text = node.textValue();
            return isClean(text) ? node : TextNode.valueOf(clean(text));
        }
        if (node.isArray()) {
            ArrayNode array = (ArrayNode) node;
            for (int i = 0; i < array.size(); i++) {
                array.set(i, clean(array.get(i)));
            }
            return array;
        }
        if (node.isObject()) {
            ObjectNode cleaned = JsonNodeFactory.instance.objectNode();
            for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext(); ) {
                Map.Entry<String, JsonNode> field = fields.next();
                cleaned.set(clean(field.getKey()), clean(field.getValue()));
            }
            return cleaned;
        }
        return node;
    }
}
