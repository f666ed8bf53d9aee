package io.mergesynthesis.service.web;

import io.mergesynthesis.service.core.ActivityBucket;
import io.mergesynthesis.service.operator.FleetActivity;
import jakarta.ws.rs.CookieParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.function.Function;

/**
 * The fleet over time: merges, failed and deferred attempts, and spend, per minute over the last hours and per day
 * over the month, as SVG drawn here, each with its numbers in a table for those who do not see the lines.
 */
@Path("/operator/time")
@Produces(MediaType.TEXT_HTML)
public final class TimePageResource {

    private static final DateTimeFormatter MINUTE = DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("d MMM").withZone(ZoneOffset.UTC);

    private final Pages pages;
    private final FleetActivity activity;

    TimePageResource(Pages pages, FleetActivity activity) {
        this.pages = pages;
        this.activity = activity;
    }

    record TimePage(Span minutes, Span days, int width, int height) {
    }

    /**
     * One time span: its four charts and its numbers.
     *
     * @param quietLeftOut whether rows with nothing in them were left out of the table
     */
    record Span(String key, String heading, List<ActivityChart> charts, List<NumberRow> rows, boolean quietLeftOut) {
    }

    record NumberRow(String when, long merges, long failures, long deferrals, String spend) {
    }

    @GET
    public Response show(@CookieParam(SessionCookies.SESSION) String cookie) {
        PlatformAccess access = PlatformAccess.toPage(pages, cookie);
        if (access.refused()) {
            return access.turnedBack();
        }
        Instant now = pages.clock().instant();
        Span minutes = span("minute", "Per minute, last " + FleetActivity.RECENT_HOURS.toHours() + " hours (UTC)",
                activity.perMinute(now), MINUTE, true);
        Span days = span("day", "Per day, last " + FleetActivity.DAYS + " days (UTC)", activity.perDay(now), DAY,
                false);
        return pages.render(200, "time", Layout.of("Over time", "operator", access.session()),
                new TimePage(minutes, days, ActivityChart.WIDTH, ActivityChart.HEIGHT));
    }

    private static Span span(String key, String heading, List<ActivityBucket> buckets, DateTimeFormatter format,
                             boolean leaveOutQuiet) {
        String first = format.format(buckets.get(0).start());
        String last = format.format(buckets.get(buckets.size() - 1).start());
        List<ActivityChart> charts = List.of(
                chart(key + "-merges", "Merges stored", buckets, b -> (double) b.merges(), first, last, false),
                chart(key + "-failures", "Attempts failed", buckets, b -> (double) b.failures(), first, last, false),
                chart(key + "-deferrals", "Attempts deferred (rate limit, budget, outage)", buckets,
                        b -> (double) b.deferrals(), first, last, false),
                chart(key + "-spend", "Spend (USD)", buckets, b -> b.spendUsd().doubleValue(), first, last, true));
        List<NumberRow> rows = buckets.stream()
                .filter(b -> !leaveOutQuiet || b.merges() + b.failures() + b.deferrals() > 0
                        || b.spendUsd().signum() > 0)
                .map(b -> new NumberRow(format.format(b.start()), b.merges(), b.failures(), b.deferrals(),
                        Dollars.usd(b.spendUsd())))
                .toList();
        return new Span(key, heading, charts, rows, leaveOutQuiet);
    }

    private static ActivityChart chart(String id, String title, List<ActivityBucket> buckets,
                                       Function<ActivityBucket, Double> value, String first, String last,
                                       boolean money) {
        List<Double> values = buckets.stream().map(value).toList();
        double peak = values.stream().mapToDouble(Double::doubleValue).max().orElse(0);
        String peakText = money ? Dollars.usd(BigDecimal.valueOf(peak)) : Long.toString(Math.round(peak));
        return ActivityChart.of(id, title, values, "peak " + peakText, first, last);
    }
}
