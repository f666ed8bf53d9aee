package io.mergesynthesis.service.resources;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** The hand-kept OpenAPI document of this API, served as written. Public: it describes, it reveals nothing. */
@Path("/v1/openapi.yaml")
public class OpenApiResource {

    /** Where the document lives on the class path. */
    public static final String LOCATION = "/openapi.yaml";
    static final String MEDIA_TYPE = "application/yaml";

    private final byte[] document;

    public OpenApiResource() {
        try (InputStream in = OpenApiResource.class.getResourceAsStream(LOCATION)) {
            if (in == null) {
                throw new IllegalStateException(LOCATION + " is missing from the class path");
            }
            this.document = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @GET
    @Produces(MEDIA_TYPE)
    public Response document() {
        return Response.ok(document, MEDIA_TYPE).build();
    }
}
