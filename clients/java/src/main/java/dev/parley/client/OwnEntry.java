package dev.parley.client;

import dev.parley.model.Content;
import dev.parley.model.MessageDetails;

/**
 * This device's own entry of the log as the server stores it (its content and details), made from its queued frame: what the
 * outbox hands the timelines when the entry's {@code message.ack} comes.
 */
record OwnEntry(Content content, MessageDetails details) {
}
