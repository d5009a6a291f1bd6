package dev.parley.ports;

import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import dev.parley.protocol.PushPlatform;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The devices registered for push, and who muted what: what {@code device.register},
 * {@code device.unregister}, {@code conversation.mute} and {@code settings.update}'s {@code notification_push} change, and
 * what the push decision reads.
 */
public interface PushDevices {

    /** A device registered for push: its platform token, and the push service's endpoint for that token. */
    record PushDevice(UserId user, DeviceId device, PushPlatform platform, String token, String endpoint) {
        public boolean isSameDevice(UserId otherUser, DeviceId otherDevice) {
            return user.equals(otherUser) && device.equals(otherDevice);
        }
    }

    /** The device registered with this token now, if any (a token belongs to one device at a time). */
    Optional<PushDevice> holderOf(PushPlatform platform, String token);

    /** What this device has registered, if anything. */
    Optional<PushDevice> registered(UserId user, DeviceId device);

    /**
     * Registers the device, replacing what it had registered, if no other device holds the token: the
     * token's holder is this device from now on. False, and nothing registered, when another device holds
     * it (it must be unregistered first): two devices registering one token at once cannot both hold it.
     */
    boolean register(PushDevice device);

    /**
     * Forgets the device's registration (and the token's holder, if that is still this device); nothing if
     * there is none. Whether this call removed one: of two racing, one does.
     */
    boolean unregister(UserId user, DeviceId device);

    /**
     * Takes a token from the device {@link #holderOf} named: the token's holder record goes if it still names
     * that device, and so does the device's registration if it is of this token. Unlike {@link #unregister}, it
     * also clears a holder record the device's registration no longer matches (left by a registration that
     * failed half-way, or by a device that registered another token), which would otherwise keep the token
     * from every other device.
     */
    void release(PushDevice holder);

    /** No push for this user's devices from the conversation until {@code until} (epoch ms); none unmutes it. */
    void mute(UserId user, ConversationId conversation, OptionalLong until);

    /**
     * Marks that a device was pushed for a conversation or notification (the mark {@code mark}, a
     * {@link ConnectionRegistry#pushMark} name) and gets no other push for it until {@code quietUntil} (epoch ms), unless a
     * mark not yet run out at {@code now} is there already (another push came first): whether this one may push. One
     * conditional write; it also clears {@code expiredMarks}, the user's marks that have run out, so marks never pile up.
     */
    boolean markPushed(UserId user, String mark, long now, long quietUntil, java.util.List<String> expiredMarks);

    /**
     * Takes back a mark {@link #markPushed} set with {@code quietUntil}, if it is still that one: a push that
     * could not be published must not keep the window's next message from pushing.
     */
    void releaseMark(UserId user, String mark, long quietUntil);

    /**
     * Turns push on or off for these notification categories of the user (the inbox gets them either way): the categories
     * with push off afterwards. An empty map changes nothing and reads them.
     */
    java.util.Set<String> setNotificationPush(UserId user, java.util.Map<String, Boolean> categories);
}
