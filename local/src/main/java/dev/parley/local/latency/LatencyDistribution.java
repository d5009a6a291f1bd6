package dev.parley.local.latency;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * A latency distribution given by three quantiles, p50, p90 and p99 in milliseconds: the way latency
 * is published. Samples are drawn by inverse transform from a quantile function that passes through
 * the three points exactly: log-normal between and beyond them (the log of the latency is linear in
 * the normal quantile on each piece), so the shape is the one latency usually has (a floor-less left
 * side, a long right tail) and the published points are reproduced whatever the fit of one log-normal.
 * Beyond p99 the tail keeps the p90-p99 slope up to p99.99, where it is capped: a model of measured
 * figures should not invent multi-second outliers nobody measured.
 */
public record LatencyDistribution(double p50, double p90, double p99) {
    /** No latency at all. */
    public static final LatencyDistribution ZERO = new LatencyDistribution(0, 0, 0);

    private static final double Z90 = standardNormalQuantile(0.90);
    private static final double Z99 = standardNormalQuantile(0.99);
    private static final double Z_CAP = standardNormalQuantile(0.9999);

    public LatencyDistribution {
        if (!(p50 >= 0 && p50 <= p90 && p90 <= p99) || !Double.isFinite(p99)) {
            throw new IllegalArgumentException("latency quantiles must be finite and 0 <= p50 <= p90 <= p99 (ms), were "
                    + p50 + "/" + p90 + "/" + p99);
        }
        if (p50 == 0 && p99 > 0) {
            throw new IllegalArgumentException("a latency with p50 0 must be 0 throughout (0/0/0), was " + p50 + "/" + p90 + "/" + p99);
        }
    }

    /** Parses {@code P50/P90/P99} in milliseconds, for example {@code 213/341/552}. */
    public static LatencyDistribution parse(String text) {
        String[] parts = text.trim().split("/");
        if (parts.length != 3) {
            throw new IllegalArgumentException("a latency is P50/P90/P99 in milliseconds (for example 213/341/552), was '" + text + "'");
        }
        try {
            return new LatencyDistribution(Double.parseDouble(parts[0]), Double.parseDouble(parts[1]), Double.parseDouble(parts[2]));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("a latency is P50/P90/P99 in milliseconds (for example 213/341/552), was '" + text + "'", e);
        }
    }

    public boolean isZero() {
        return p99 == 0;
    }

    /** The latency at quantile {@code q} (0 < q < 1), in milliseconds. */
    public double quantile(double q) {
        if (isZero()) {
            return 0;
        }
        double z = Math.min(standardNormalQuantile(q), Z_CAP);
        double logP50 = Math.log(p50);
        double logP90 = Math.log(p90);
        double logP99 = Math.log(p99);
        if (z <= Z90) {
            // Below p50 the p50-p90 slope continues, as a log-normal's would.
            return Math.exp(logP50 + z / Z90 * (logP90 - logP50));
        }
        return Math.exp(logP90 + (z - Z90) / (Z99 - Z90) * (logP99 - logP90));
    }

    /** One latency drawn from the distribution. */
    public Duration sample(RandomGenerator random) {
        if (isZero()) {
            return Duration.ZERO;
        }
        // nextDouble() is in [0, 1); 0 itself has no quantile.
        double q = Math.max(random.nextDouble(), Double.MIN_NORMAL);
        return Duration.ofNanos(Math.round(quantile(q) * 1_000_000));
    }

    @Override
    public String toString() {
        return isZero() ? "0" : format(p50) + "/" + format(p90) + "/" + format(p99) + " ms";
    }

    private static String format(double millis) {
        return millis == Math.rint(millis) ? Long.toString((long) millis) : Double.toString(millis);
    }

    /**
     * The standard normal distribution's quantile function, by Acklam's rational approximation
     * (relative error below 1.2e-9), which is plenty for drawing latencies.
     */
    static double standardNormalQuantile(double p) {
        if (!(p > 0 && p < 1)) {
            throw new IllegalArgumentException("a quantile is strictly between 0 and 1, was " + p);
        }
        final double[] a = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02,
                -3.066479806614716e+01, 2.506628277459239e+00};
        final double[] b = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01,
                -1.328068155288572e+01};
        final double[] c = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00,
                4.374664141464968e+00, 2.938163982698783e+00};
        final double[] d = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00};
        final double low = 0.02425;
        if (p < low) {
            double q = Math.sqrt(-2 * Math.log(p));
            return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
        }
        if (p > 1 - low) {
            double q = Math.sqrt(-2 * Math.log(1 - p));
            return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
        }
        double q = p - 0.5;
        double r = q * q;
        return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
                / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }
}
