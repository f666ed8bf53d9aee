package io.mergesynthesis.service.web;

import com.github.mustachejava.DefaultMustacheFactory;
import com.github.mustachejava.Mustache;
import com.github.mustachejava.MustacheFactory;
import java.io.StringWriter;

/**
 * The page templates under {@code web/templates/} on the class path. Mustache escapes every {@code {{value}}}
 * for HTML (quotes included, so values are safe in attributes too); the templates never use the unescaped form.
 */
final class Templates {

    private final MustacheFactory factory = new DefaultMustacheFactory("web/templates");

    /** Renders {@code name}; a name is looked up in the page's values (last first), then in the layout's. */
    String render(String name, Layout layout, Object... page) {
        Mustache template = factory.compile(name + ".mustache");
        StringWriter out = new StringWriter();
        Object[] scopes = new Object[page.length + 1];
        scopes[0] = layout;
        System.arraycopy(page, 0, scopes, 1, page.length);
        // Mustache searches the last scope first.
        template.execute(out, scopes);
        return out.toString();
    }
}
