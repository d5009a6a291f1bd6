package dev.parley.ports;

import dev.parley.model.ConversationId;
import dev.parley.model.NotificationId;
import java.util.Objects;

/**
 * What a push wakes the app for, and never what was said: the app fetches that over its socket. Pushes for one subject
 * collapse into one on the device.
 */
public sealed interface PushSubject {

    /**
     * New messages in a conversation: the app syncs it. {@code mentioned}: the message that pushed mentions the user, by name or
     * as every member: the reason the app can show ("You were mentioned"), and why a conversation the user muted still pushed.
     */
    record NewMessages(ConversationId conversation, boolean mentioned) implements PushSubject {
        public NewMessages {
            Objects.requireNonNull(conversation, "conversation");
        }

        /** New messages that do not mention the user. */
        public NewMessages(ConversationId conversation) {
            this(conversation, false);
        }

        /** The reason the payload names: {@code mention} or {@code message}. */
        public String reason() {
            return mentioned ? "mention" : "message";
        }
    }

    /** A new (or grown) notification in the user's inbox: the app lists the inbox. The category lets it pick a channel. */
    record InboxNotification(NotificationId notification, String category) implements PushSubject {
        public InboxNotification {
            Objects.requireNonNull(notification, "notification");
            dev.parley.model.Notification.requireCategory(category);
        }
    }
}
