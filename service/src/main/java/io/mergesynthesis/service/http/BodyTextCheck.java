package io.mergesynthesis.service.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.mergesynthesis.service.api.ErrorBody;
import io.mergesynthesis.service.api.ErrorBody.FieldProblem;
import io.mergesynthesis.service.core.Storable;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ReaderInterceptor;
import jakarta.ws.rs.ext.ReaderInterceptorContext;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Request bodies hold no text the database cannot keep, whichever resource reads them. JSON allows
 * {@code "\u0000"} and a lone {@code "\ud800"} in a string, and a form decoder silently turns bytes that are not
 * UTF-8 into U+FFFD: a JSON string (or name) with a NUL or an unpaired surrogate is a 422 naming its field, and
 * such a form field a 400 naming it, before any resource acts on the body.
 */
public final class BodyTextCheck implements ReaderInterceptor {

    @Override
    public Object aroundReadFrom(ReaderInterceptorContext context) throws IOException {
        if (MediaType.APPLICATION_FORM_URLENCODED_TYPE.isCompatible(context.getMediaType())) {
            byte[] body = context.getInputStream().readAllBytes();
            String problem = formProblem(new String(body, StandardCharsets.ISO_8859_1));
            if (problem != null) {
                throw new WebApplicationException(problem, ErrorBody.response(Response.Status.BAD_REQUEST,
                        problem + "; nothing was done"));
            }
            context.setInputStream(new ByteArrayInputStream(body));
            return context.proceed();
        }
        Object read = context.proceed();
        if (read instanceof JsonNode json) {
            List<FieldProblem> problems = new ArrayList<>();
            walk(json, "", problems);
            if (!problems.isEmpty()) {
                throw new WebApplicationException("unkeepable text in the body", ErrorBody.response(422,
                        "invalid request body: a string holds text that cannot be kept; nothing was done",
                        problems));
            }
        }
        return read;
    }

    /** What is wrong with a form body's fields, naming the first bad one, or null. */
    static String formProblem(String rawForm) {
        for (String pair : rawForm.split("&")) {
            int equals = pair.indexOf('=');
            String name = equals < 0 ? pair : pair.substring(0, equals);
            String nameProblem = EncodedText.problem(name, true);
            if (nameProblem != null) {
                return "a form field's name '" + ParameterTextFilter.printable(name) + "' " + nameProblem;
            }
            String valueProblem = equals < 0 ? null : EncodedText.problem(pair.substring(equals + 1), true);
            if (valueProblem != null) {
                return "form field " + ParameterTextFilter.printable(name) + " " + valueProblem;
            }
        }
        return null;
    }

    /** Adds a problem for each string and each name in {@code node}, at the path ingest's errors use too. */
    static void walk(JsonNode node, String at, List<FieldProblem> problems) {
        if (node.isTextual()) {
            String problem = Storable.textProblem(node.textValue());
            if (problem != null) {
                problems.add(new FieldProblem(at.isEmpty() ? "(body)" : at, problem));
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                walk(node.get(i), at + "[" + i + "]", problems);
            }
        } else if (node.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext(); ) {
                Map.Entry<String, JsonNode> field = fields.next();
                String name = field.getKey();
                String nameProblem = Storable.textProblem(name);
                String path = at.isEmpty() ? name : at + "." + name;
                if (nameProblem != null) {
                    problems.add(new FieldProblem(at.isEmpty() ? "(body)" : at, "a field's name "
                            + nameProblem));
                } else {
                    walk(field.getValue(), path, problems);
                }
            }
        }
    }
}
