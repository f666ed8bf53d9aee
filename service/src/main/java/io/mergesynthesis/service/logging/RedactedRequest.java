package io.mergesynthesis.service.logging;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.server.Request;

/** A finished request as the request log may see it: the same request with its credentials replaced. */
final class RedactedRequest extends Request.Wrapper {

    private final HttpURI uri;
    private final HttpFields headers;

    RedactedRequest(Request request, SecretRedactor redactor) {
        super(request);
        this.uri = redactUri(request.getHttpURI(), redactor);
        this.headers = redactHeaders(request.getHeaders(), redactor);
    }

    @Override
    public HttpURI getHttpURI() {
        return uri;
    }

    @Override
    public HttpFields getHeaders() {
        return headers;
    }

    static HttpURI redactUri(HttpURI uri, SecretRedactor redactor) {
        String query = uri.getQuery();
        String path = uri.getPath();
        String redactedQuery = query == null ? null : redactQuery(query, redactor);
        String redactedPath = path == null ? null : redactor.redact(path);
        if (java.util.Objects.equals(query, redactedQuery) && java.util.Objects.equals(path, redactedPath)) {
            return uri;
        }
        HttpURI.Mutable mutable = HttpURI.build(uri).query(redactedQuery);
        if (!java.util.Objects.equals(path, redactedPath)) {
            mutable.path(redactedPath);
        }
        return mutable.asImmutable();
    }

    /** Each parameter named like a secret loses its value; every other value is searched for secret shapes. */
    static String redactQuery(String query, SecretRedactor redactor) {
        StringBuilder out = new StringBuilder(query.length());
        for (String part : query.split("&", -1)) {
            if (!out.isEmpty()) {
                out.append('&');
            }
            int eq = part.indexOf('=');
            String name = eq < 0 ? part : part.substring(0, eq);
            if (eq >= 0 && SecretRedactor.secretName(decode(name))) {
                out.append(name).append('=').append(SecretRedactor.MARK);
            } else {
                String redacted = redactor.redact(part);
                // Percent-encoded, a key may hide from the shapes; the decoded form is searched as well.
                String decoded = decode(part);
                out.append(redacted.equals(part) && !redactor.redact(decoded).equals(decoded)
                        ? (eq < 0 ? "" : name + "=") + SecretRedactor.MARK : redacted);
            }
        }
        return out.toString();
    }

    private static HttpFields redactHeaders(HttpFields fields, SecretRedactor redactor) {
        HttpFields.Mutable out = HttpFields.build(fields.size());
        for (HttpField field : fields) {
            String name = field.getName();
            String value = field.getValue();
            if (CredentialHeaders.isCredential(name)) {
                out.add(name, CredentialHeaders.redactedValue(name, value, SecretRedactor.MARK));
            } else {
                out.add(name, redactor.redact(value));
            }
        }
        return out.asImmutable();
    }

    private static String decode(String text) {
        try {
            return URLDecoder.decode(text, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return text;
        }
    }
}
