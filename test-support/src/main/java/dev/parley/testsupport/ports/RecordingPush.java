package dev.parley.testsupport.ports;

import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.ports.PushNotifier;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Push in memory: which user's device was handed which message (every target, no coalescing). */
public final class RecordingPush implements PushNotifier {
    public record HandOff(UserId recipient, Message message) {
    }

    public final List<HandOff> handOffs = new CopyOnWriteArrayList<>();

    @Override
    public void push(Message message, List<Target> targets) {
        targets.forEach(target -> handOffs.add(new HandOff(target.device().user(), message)));
    }

    public List<UserId> recipients() {
        return handOffs.stream().map(HandOff::recipient).toList();
    }
}
