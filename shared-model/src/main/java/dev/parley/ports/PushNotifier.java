package dev.parley.ports;

import dev.parley.model.Message;
import dev.parley.model.UserId;

/** Hands a message to mobile push for a member who has no live connection. */
public interface PushNotifier {
    void notifyOffline(UserId recipient, Message message);
}
