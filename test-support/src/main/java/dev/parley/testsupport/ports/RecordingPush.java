package dev.parley.testsupport.ports;

import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.ports.PushNotifier;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Push in memory: who was handed which message. */
public final class RecordingPush implements PushNotifier {
    public record HandOff(UserId recipient, Message message) {
    }

    public final List<HandOff> handOffs = new CopyOnWriteArrayList<>();

    @Override
    public void notifyOffline(UserId recipient, Message message) {
        handOffs.add(new HandOff(recipient, message));
    }

    public List<UserId> recipients() {
        return handOffs.stream().map(HandOff::recipient).toList();
    }
}
