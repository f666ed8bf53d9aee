package io.mergesynthesis.bench;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** Draws the scale curve, throughput against finished rows already in the table, as {@code scale.png}. */
final class ScaleChart {

    /** Fixed colours, so that a series keeps its colour whether or not the other one was measured. */
    private static final Color POOL_COLOR = new Color(0x1f, 0x77, 0xb4);
    private static final Color CEILING_COLOR = new Color(0xff, 0x7f, 0x0e);

    private ScaleChart() {
    }

    static Path write(Results results, Path dir) throws IOException {
        XYChart chart = new XYChartBuilder().width(900).height(540)
                .title("Drain throughput as finished conflicts pile up")
                .xAxisTitle("finished conflicts already in policy_conflicts")
                .yAxisTitle("conflicts/s")
                .build();
        chart.getStyler().setXAxisLogarithmic(true);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        boolean any = addSeries(chart, results, "worker pool, 1 replica", POOL_COLOR,
                Results.ScalePoint::poolPerSecond);
        any |= addSeries(chart, results, "database ceiling (plain JDBC)", CEILING_COLOR,
                Results.ScalePoint::ceilingPerSecond);
        if (!any) {
            chart.setTitle("Scale curve: nothing measured (see results.json)");
            chart.getStyler().setXAxisLogarithmic(false);
            chart.addSeries("no data", new double[] {0}, new double[] {0}).setMarker(SeriesMarkers.NONE);
        }
        Files.createDirectories(dir);
        Path file = dir.resolve("scale.png");
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        return file;
    }

    private static boolean addSeries(XYChart chart, Results results, String name, Color color,
                                     Function<Results.ScalePoint, Double> value) {
        List<Double> xs = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        for (Results.ScalePoint p : results.scale()) {
            Double y = value.apply(p);
            if (y != null) {
                xs.add((double) p.historyRows());
                ys.add(y);
            }
        }
        if (xs.isEmpty()) {
            return false;
        }
        XYSeries series = chart.addSeries(name, xs, ys);
        series.setMarker(SeriesMarkers.CIRCLE);
        series.setLineColor(color);
        series.setMarkerColor(color);
        return true;
    }
}
