package dev.parley.ports;

import dev.parley.model.Message;
import java.util.List;
import java.util.OptionalLong;

/** Wakes the devices a new message did not reach live: one content-free push each, coalesced per device and conversation. */
public interface PushNotifier {

    /**
     * A device to wake for a message: registered for push, with no live connection, its user a member other
     * than the sender who has not muted the conversation; {@code quietUntil} is its push mark for the
     * conversation as read (no other push before then), and {@code expiredMarks} the user's marks that have
     * run out, which the next mark written clears away.
     */
    record Target(PushDevices.PushDevice device, OptionalLong quietUntil, List<String> expiredMarks) {
        public Target {
            expiredMarks = List.copyOf(expiredMarks);
        }
    }

    /** Pushes the message to these devices, as far as coalescing lets it; a push that fails is logged, not thrown. */
    void push(Message message, List<Target> targets);
}
