package io.mergesynthesis.service.web;

import io.mergesynthesis.service.core.ReplicaBeat;
import io.mergesynthesis.service.operator.OrgDirectory;
import io.mergesynthesis.service.operator.ProviderShares;
import io.mergesynthesis.service.operator.Replicas;
import jakarta.ws.rs.CookieParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * The replicas their heartbeats describe, live, gone or stopped, and per provider what each keeps; below them, each
 * org's share of the last minute's provider calls on the whole deployment beside the share its weight is due.
 */
@Path("/operator/replicas")
@Produces(MediaType.TEXT_HTML)
public final class ReplicasPageResource {

    private final Pages pages;
    private final Replicas replicas;
    private final ProviderShares shares;
    private final OrgDirectory orgs;

    ReplicasPageResource(Pages pages, Replicas replicas, ProviderShares shares, OrgDirectory orgs) {
        this.pages = pages;
        this.replicas = replicas;
        this.shares = shares;
        this.orgs = orgs;
    }

    record ReplicasPage(List<Row> replicas, int goneAfter, Shares shares) {
        boolean hasReplicas() {
            return !replicas.isEmpty();
        }
    }

    /** The orgs with the most calls of the last minute, out of {@code orgsCalled} called and {@code calls} calls. */
    record Shares(List<ShareRow> orgs, long orgsCalled, long calls, int most) {
        boolean hasCalls() {
            return calls > 0;
        }

        boolean moreOrgs() {
            return orgsCalled > orgs.size();
        }
    }

    record ShareRow(String org, OrgLabel orgLabel, long calls, String share, int weight, String dueShare) {
    }

    record Row(String id, String host, String version, Moment started, String interval, int workers, int inFlight,
               Moment lastClaim, Moment lastBeat, String state, String stateLabel, List<ProviderRow> providers) {
        boolean hasProviders() {
            return !providers.isEmpty();
        }
    }

    record ProviderRow(String name, boolean open, String detail, String limit, String pace) {
    }

    @GET
    public Response list(@CookieParam(SessionCookies.SESSION) String cookie) {
        PlatformAccess access = PlatformAccess.toPage(pages, cookie);
        if (access.refused()) {
            return access.turnedBack();
        }
        Instant now = pages.clock().instant();
        List<Row> rows = replicas.list(now).stream().map(r -> row(r, now)).toList();
        return pages.render(200, "replicas", Layout.of("Replicas", "operator", access.session()),
                new ReplicasPage(rows, Replicas.GONE_AFTER_INTERVALS, shares(shares.lastMinute(now))));
    }

    private Shares shares(ProviderShares.Shares shares) {
        Map<UUID, String> names = orgs.namesOf(shares.orgs().stream().map(ProviderShares.OrgShare::org).toList());
        return new Shares(shares.orgs().stream().map(o -> new ShareRow(o.org().toString(), OrgLabel.of(o.org(), names),
                o.calls(), percent(o.share()), o.weight(), percent(o.dueShare()))).toList(), shares.orgsCalled(),
                shares.calls(), ProviderShares.MOST_ORGS);
    }

    private static String percent(double fraction) {
        return String.format(Locale.ROOT, "%.1f%%", fraction * 100);
    }

    private static Row row(Replicas.Replica replica, Instant now) {
        ReplicaBeat b = replica.beat();
        String state = replica.state().name().toLowerCase(Locale.ROOT);
        String label = switch (replica.state()) {
            case LIVE -> "live";
            case GONE -> "gone: silent for " + seconds(replica.silentFor().toMillis());
            case STOPPED -> "stopped";
        };
        return new Row(b.replicaId(), b.host(), b.version(), Moment.of(b.startedAt(), now),
                seconds(b.interval().toMillis()), b.workers(), b.inFlight(), Moment.of(b.lastClaimAt(), now),
                Moment.of(b.beatAt(), now), state, label, b.providers().stream().map(p -> new ProviderRow(p.name(),
                        p.circuitOpen(), p.circuitDetail(),
                        p.concurrencyLimit() == null ? "none" : Integer.toString(p.concurrencyLimit()),
                        p.requestsPerSecond() <= 0 ? "not pacing"
                                : String.format(Locale.ROOT, "%.2f requests/s", p.requestsPerSecond()))).toList());
    }

    private static String seconds(long millis) {
        return millis % 1000 == 0 ? millis / 1000 + " s" : String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
    }
}
