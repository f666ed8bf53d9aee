package io.mergesynthesis.service.web;

import io.mergesynthesis.service.core.ProviderBatch;
import io.mergesynthesis.service.operator.BatchAdmin;
import io.mergesynthesis.service.operator.OrgDirectory;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.CookieParam;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * The batch lane's batches for the operator, newest first: provider, the provider's id, requests, state, age and
 * cost, with a cancel for each one not done (the same cancel as {@code POST /v1/batches/{id}/cancel}).
 */
@Path("/operator/batches")
@Produces(MediaType.TEXT_HTML)
public final class BatchesPageResource {

    private final Pages pages;
    private final BatchAdmin batches;
    private final OrgDirectory orgs;

    BatchesPageResource(Pages pages, BatchAdmin batches, OrgDirectory orgs) {
        this.pages = pages;
        this.batches = batches;
        this.orgs = orgs;
    }

    record BatchesPage(List<Row> batches, int listed) {
        boolean hasBatches() {
            return !batches.isEmpty();
        }
    }

    /**
     * One batch. {@code cost} is what its answers cost once done, else what it reserved of its org's budget.
     */
    record Row(String id, String provider, String model, String providerBatchId, OrgLabel orgLabel, int requests,
               String state, Moment created, String age, String cost, boolean costSettled, String cancel,
               boolean cancelable) {

        /** The id's first group: enough to tell a page of batches apart; the whole id is its title. */
        String shortId() {
            return id.substring(0, id.indexOf('-'));
        }
    }

    @GET
    public Response list(@CookieParam(SessionCookies.SESSION) String cookie, @QueryParam("notice") String notice) {
        PlatformAccess access = PlatformAccess.toPage(pages, cookie);
        if (access.refused()) {
            return access.turnedBack();
        }
        Instant now = pages.clock().instant();
        List<ProviderBatch> listed = batches.recent();
        Map<UUID, String> names = orgs.namesOf(listed.stream().map(ProviderBatch::orgId)
                .collect(Collectors.toSet()));
        List<Row> rows = listed.stream().map(b -> row(b, names, now)).toList();
        return pages.render(200, "batches", OperatorNotice.layout("Provider batches", notice, access),
                new BatchesPage(rows, BatchAdmin.LISTED));
    }

    @POST
    @Path("cancel")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Response cancel(@CookieParam(SessionCookies.SESSION) String cookie, @FormParam("form_key") String formKey,
                           @FormParam("batch") String batchParam, @Context HttpHeaders headers) {
        PlatformAccess access = PlatformAccess.toForm(pages, cookie, headers, formKey);
        if (access.refused()) {
            return access.turnedBack();
        }
        UUID id = CanonicalIds.uuid(batchParam);
        Optional<ProviderBatch> batch = id == null ? Optional.empty()
                : batches.cancel(access.session().caller(), id);
        OperatorNotice outcome = batch.isEmpty() ? OperatorNotice.NO_SUCH_BATCH
                : batch.get().done() ? OperatorNotice.BATCH_DONE : OperatorNotice.CANCEL_ASKED;
        return Pages.seeOther("/operator/batches?notice=" + outcome.code());
    }

    private static Row row(ProviderBatch b, Map<UUID, String> names, Instant now) {
        String cancel = b.cancelRequestedAt() == null ? null
                : b.cancelReason().replace('_', ' ') + (b.cancelSentAt() != null ? ", sent to the provider"
                        : ", not yet sent");
        boolean settled = b.costUsd() != null;
        return new Row(b.id().toString(), b.provider(), b.model(), b.providerBatchId(),
                OrgLabel.of(b.orgId(), names), b.requests(), b.state().replace('_', ' '),
                Moment.of(b.createdAt(), now), age(Duration.between(b.createdAt(), b.endedAt() != null ? b.endedAt()
                        : now)), Dollars.usd(settled ? b.costUsd() : b.reservedUsd()), settled, cancel,
                !b.done() && b.cancelRequestedAt() == null);
    }

    /** How long a batch has been, or was, at the provider: the figure an operator compares with a day. */
    private static String age(Duration age) {
        long minutes = Math.max(0, age.toMinutes());
        if (minutes < 60) {
            return minutes + " min";
        }
        return minutes % 60 == 0 ? minutes / 60 + " h" : minutes / 60 + " h " + minutes % 60 + " min";
    }
}
