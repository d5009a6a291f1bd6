package dev.parley.functions.manifest;

import java.time.Duration;

/**
 * An S3 bucket as Parley defines it: a logical name (the local cloud's bucket; the stack lets CloudFormation name the real
 * one) and how long objects stay before they are deleted (a lifecycle rule on AWS, a sweep in the local cloud).
 */
public record BucketSpec(String name, Duration retention) {
    public BucketSpec {
        if (name == null || !name.matches("[a-z0-9][a-z0-9-]{1,61}[a-z0-9]")) {
            throw new IllegalArgumentException("a bucket name is 3 to 63 lower-case letters, digits and -, was " + name);
        }
        if (retention.compareTo(Duration.ofDays(1)) < 0 || retention.toHours() % 24 != 0) {
            throw new IllegalArgumentException("a retention is a whole number of days, at least one, was " + retention);
        }
    }
}
