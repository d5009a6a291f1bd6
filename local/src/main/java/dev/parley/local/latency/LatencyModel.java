package dev.parley.local.latency;

import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The delays the local cloud adds where AWS has them, so that local benchmarks show what a deployed
 * stack would: each {@link Hop} has a {@link LatencyDistribution}, and every crossing of the hop
 * waits a latency drawn from it. {@link #none()} (the default, for tests) adds nothing;
 * {@link #aws(long)} holds the figures in docs/local-cloud.md ("The latency model"), each with its
 * source or its stated assumption. The model is seeded: each hop draws from its own generator,
 * derived from the seed, so a run repeats the same sequence of draws per hop (which request gets
 * which draw still depends on thread timing).
 */
public final class LatencyModel {
    /** Where a delay is added. */
    public enum Hop {
        /** A DynamoDB Streams record, from its write to the Lambda invocation that carries it (instead of the poll interval). */
        STREAM_TO_LAMBDA("stream"),
        /** An SQS message, from its send to the Lambda invocation that carries it. */
        SQS_TO_LAMBDA("sqs"),
        /** One DynamoDB request, as a client in the table's region sees it, added to the emulator's own time. */
        DYNAMODB_REQUEST("dynamodb"),
        /** A WebSocket frame, from the gateway to its route's Lambda and the answer back, beyond the function's own run time. */
        ROUTE_TO_LAMBDA("route"),
        /** One {@code @connections} POST, from the function's call to the frame on the socket and the call's answer. */
        CONNECTIONS_POST("post");

        private final String key;

        Hop(String key) {
            this.key = key;
        }

        /** The hop's name in {@code --latency HOP=P50/P90/P99}. */
        public String key() {
            return key;
        }

        public static Hop ofKey(String key) {
            return Arrays.stream(values()).filter(hop -> hop.key.equals(key.toLowerCase(Locale.ROOT))).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no latency hop '" + key + "'; the hops are "
                            + Arrays.stream(values()).map(Hop::key).toList()));
        }
    }

    /** The named presets of {@code --latency-model}. */
    public enum Preset {
        /** No delays: the local cloud as fast as this machine runs it (the default, for tests). */
        NONE,
        /** AWS's figures, as docs/local-cloud.md gives their sources and assumptions. */
        AWS
    }

    /** The seed when none is given: runs repeat by default. */
    public static final long DEFAULT_SEED = 13;

    private final String name;
    private final long seed;
    private final Map<Hop, LatencyDistribution> hops;
    private final Map<Hop, Delay> delays = new EnumMap<>(Hop.class);

    private LatencyModel(String name, long seed, Map<Hop, LatencyDistribution> hops) {
        this.name = name;
        this.seed = seed;
        Map<Hop, LatencyDistribution> copy = new EnumMap<>(Hop.class);
        copy.putAll(hops);
        this.hops = Collections.unmodifiableMap(copy);
        for (Hop hop : Hop.values()) {
            // Each hop its own generator, so adding draws at one hop does not shift another's sequence.
            delays.put(hop, new Delay(this.hops.getOrDefault(hop, LatencyDistribution.ZERO), new SplittableRandom(seed * 31 + hop.ordinal())));
        }
    }

    /** No added latency anywhere. */
    public static LatencyModel none() {
        return new LatencyModel("none", DEFAULT_SEED, Map.of());
    }

    /**
     * AWS in one region, as published or, where nothing is published, as assumed (docs/local-cloud.md):
     * <ul>
     * <li>Streams to Lambda p50 213, p90 341, p99 552 ms and SQS to Lambda 16/34/105 ms: bitesizedserverless.com,
     * "Serverless Messaging: Latency Compared" (eu-west-1, 1,024 messages per service);</li>
     * <li>a DynamoDB request 5/8/20 ms: AWS states single-digit milliseconds on average at the service; the
     * percentiles are an assumption meant to err slow;</li>
     * <li>a route to Lambda, each way, 8/14/30 ms and an {@code @connections} POST 10/18/40 ms: assumptions,
     * for {@code scripts/smoke} to calibrate against a deployed stack.</li>
     * </ul>
     */
    public static LatencyModel aws(long seed) {
        Map<Hop, LatencyDistribution> hops = new EnumMap<>(Hop.class);
        hops.put(Hop.STREAM_TO_LAMBDA, new LatencyDistribution(213, 341, 552));
        hops.put(Hop.SQS_TO_LAMBDA, new LatencyDistribution(16, 34, 105));
        hops.put(Hop.DYNAMODB_REQUEST, new LatencyDistribution(5, 8, 20));
        hops.put(Hop.ROUTE_TO_LAMBDA, new LatencyDistribution(8, 14, 30));
        hops.put(Hop.CONNECTIONS_POST, new LatencyDistribution(10, 18, 40));
        return new LatencyModel("aws", seed, hops);
    }

    public static LatencyModel of(Preset preset, long seed) {
        return switch (preset) {
            case NONE -> none().withSeed(seed);
            case AWS -> aws(seed);
        };
    }

    /** This model with one hop's distribution replaced (a deployer's own measurement, say). */
    public LatencyModel with(Hop hop, LatencyDistribution distribution) {
        Map<Hop, LatencyDistribution> changed = new EnumMap<>(Hop.class);
        changed.putAll(hops);
        changed.put(hop, distribution);
        return new LatencyModel(name.endsWith("+") ? name : name + "+", seed, changed);
    }

    public LatencyModel withSeed(long newSeed) {
        return new LatencyModel(name, newSeed, hops);
    }

    public String name() {
        return name;
    }

    public long seed() {
        return seed;
    }

    public LatencyDistribution distribution(Hop hop) {
        return hops.getOrDefault(hop, LatencyDistribution.ZERO);
    }

    /** True when the model adds nothing anywhere. */
    public boolean isNone() {
        return hops.values().stream().allMatch(LatencyDistribution::isZero);
    }

    /** The delay at one hop: draws from this model's generator for it. */
    public Delay delay(Hop hop) {
        return delays.get(hop);
    }

    /** One line per hop with a latency, for the launcher's report and the benchmark's. */
    public String describe() {
        if (isNone()) {
            return name + " (no added latency)";
        }
        StringBuilder text = new StringBuilder(name).append(" (seed ").append(seed).append(")");
        hops.forEach((hop, distribution) -> {
            if (!distribution.isZero()) {
                text.append("; ").append(hop.key()).append(' ').append(distribution);
            }
        });
        return text.toString();
    }

    @Override
    public String toString() {
        return describe();
    }

    /** The latency of one hop: draws, and waits. Thread-safe. */
    public static final class Delay {
        private final LatencyDistribution distribution;
        private final SplittableRandom random;

        Delay(LatencyDistribution distribution, SplittableRandom random) {
            this.distribution = distribution;
            this.random = random;
        }

        public boolean isZero() {
            return distribution.isZero();
        }

        /** The next latency drawn for this hop. */
        public Duration next() {
            if (distribution.isZero()) {
                return Duration.ZERO;
            }
            synchronized (random) {
                return distribution.sample(random);
            }
        }

        /** Waits the next latency drawn for this hop (nothing when the hop has none). */
        public void pause() {
            Duration wait = next();
            if (wait.isZero()) {
                return;
            }
            try {
                Thread.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
