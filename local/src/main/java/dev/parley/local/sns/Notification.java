package dev.parley.local.sns;

import java.time.Instant;

/** A message an SNS topic hands its subscribers: what a Lambda subscription receives as its event's {@code Sns} part. */
public record Notification(String topicArn, String messageId, String subject, String message, Instant timestamp) {
}
